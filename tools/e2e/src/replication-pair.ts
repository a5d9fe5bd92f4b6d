import { ADMIN_KEY, callSigned, type TestStack } from '@svc/system-testing';
import { LiveReplication, liveCreateRequest, type WorkloadProgress } from './live-replication';
import { CUSTOMERS, ORDERS, SALES_ITEMS } from './live-workload';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';
import { tableLabel, withColumn, type TableSpec } from './suite/table-spec';

/** The live tables, all keyed. */
export const PAIR_TABLES: TableSpec[] = [ORDERS, CUSTOMERS, SALES_ITEMS];

/** A Type2 table's versions: the source columns, then when each version began and ended and whether it is current. */
const versionsOf = (spec: TableSpec): TableSpec =>
  [
    { name: 'svc_sys_valid_from', type: 'timestamptz' as const },
    { name: 'svc_sys_valid_to', type: 'timestamptz' as const },
    { name: 'svc_sys_is_current', type: 'boolean' as const },
  ].reduce(withColumn, spec);

export interface ReplicationPairOptions {
  stack: TestStack;
  /** A session on the source that no workload uses. */
  source: SourceSession;
  warehouse: WarehouseSession;
  workload?: WorkloadProgress;
  bucketName: string;
  /** The source's connection string for the service; the stack's PostgreSQL source database when absent. */
  sourceConnectionString?: string;
  /** The staging database's; the stack's PostgreSQL staging database when absent. */
  stagingConnectionString?: string;
}

/**
 * The same source replicated twice into one warehouse: Type1 into schema `dw`, Type2 into `hist`. The
 * checks the kill and cluster suites end with: each equals the source, and neither holds a duplicate.
 */
export class ReplicationPair {
  readonly type1: LiveReplication;
  readonly type2: LiveReplication;

  constructor(private readonly options: ReplicationPairOptions) {
    const common = { stack: options.stack, source: options.source, warehouse: options.warehouse, tables: PAIR_TABLES, ...(options.workload && { workload: options.workload }) };
    this.type1 = new LiveReplication({ ...common, warehouseSchema: 'dw' });
    this.type2 = new LiveReplication({ ...common, warehouseSchema: 'hist' });
    this.type2.scdType = 'Type2';
  }

  get both(): LiveReplication[] {
    return [this.type1, this.type2];
  }

  /** CreateWarehouseReplication for both (every source table); each must answer 200. */
  async create(): Promise<void> {
    for (const live of this.both) {
      const body = liveCreateRequest(this.options.stack, {
        sourceConnectionString: this.options.sourceConnectionString ?? this.options.stack.source.url,
        ...(this.options.stagingConnectionString !== undefined && { stagingConnectionString: this.options.stagingConnectionString }),
        bucketName: this.options.bucketName,
        bucketFolderName: `/${live === this.type1 ? 'dw' : 'hist'}`,
        tablesToInclude: 'All',
        databaseSchema: live === this.type1 ? 'dw' : 'hist',
        scdType: live.scdType,
      });
      const response = await callSigned(this.options.stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
      if (response.status !== 200) throw new Error(`Create answered ${response.status}: ${response.body}`);
      live.replicationId = (JSON.parse(response.body) as { replicationId: string }).replicationId;
    }
  }

  /** True when every table of both replications is Tracking (seeded). */
  async tracking(): Promise<boolean> {
    for (const live of this.both) {
      const phases = Object.values(await live.phases());
      if (phases.length !== PAIR_TABLES.length || phases.some((phase) => phase !== 'Tracking')) return false;
    }
    return true;
  }

  /**
   * Waits until both warehouse copies equal the source while their watermarks keep moving (see
   * LiveReplication.waitForWarehouseEqualsSourceWhileMoving), within one cap for both.
   */
  async waitForConvergenceWhileMoving(stallMs: number, capMs: number): Promise<void> {
    const cap = Date.now() + capMs;
    for (const live of this.both) await live.waitForWarehouseEqualsSourceWhileMoving(stallMs, Math.max(1, cap - Date.now()));
  }

  /** Waits until both warehouse copies equal the source (Type2: its current rows), within one deadline. */
  async waitForConvergence(deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    for (const live of this.both) await live.waitForWarehouseEqualsSource(Math.max(1, deadline - Date.now()));
  }

  /**
   * Duplicates in the warehouse, one line per table that has any: Type1 keys held more than once; Type2 keys
   * with more than one current row, or with two successive versions that hold the same values (a change
   * applied twice). Empty when there are none.
   */
  async duplicates(): Promise<string[]> {
    const found: string[] = [];
    const { warehouse } = this.options;
    for (const spec of PAIR_TABLES) {
      const keyOf = (row: readonly (string | null)[]) => JSON.stringify(spec.primaryKey.map((key) => row[spec.columns.findIndex((column) => column.name === key)]));
      const type1 = (await warehouse.readRows(this.type1.warehouseSchema, spec)) ?? [];
      const shared = type1.length - new Set(type1.map(keyOf)).size;
      if (shared !== 0) found.push(`${this.type1.warehouseSchema}.${tableLabel(spec)}: ${shared} rows share a key`);

      const versions = versionsOf(spec);
      const sourceColumns = spec.columns.length;
      const byKey = new Map<string, (string | null)[][]>();
      for (const row of (await warehouse.readRows(this.type2.warehouseSchema, versions)) ?? []) {
        const key = keyOf(row);
        byKey.set(key, [...(byKey.get(key) ?? []), row]);
      }
      let severalCurrent = 0;
      let repeated = 0;
      for (const rows of byKey.values()) {
        if (rows.filter((row) => row[sourceColumns + 2] === 'true').length > 1) severalCurrent += 1;
        // In the order the versions follow each other: by valid_from, the open one last.
        const ordered = [...rows].sort((a, b) => compareVersions(a, b, sourceColumns));
        ordered.forEach((row, index) => {
          const previous = ordered[index - 1];
          if (previous && JSON.stringify(previous.slice(0, sourceColumns)) === JSON.stringify(row.slice(0, sourceColumns))) repeated += 1;
        });
      }
      const type2 = `${this.type2.warehouseSchema}.${tableLabel(spec)}`;
      if (severalCurrent !== 0) found.push(`${type2}: ${severalCurrent} keys with more than one current row`);
      if (repeated !== 0) found.push(`${type2}: ${repeated} versions repeat the version before them`);
    }
    return found;
  }
}

function compareVersions(a: readonly (string | null)[], b: readonly (string | null)[], sourceColumns: number): number {
  const from = (a[sourceColumns] ?? '').localeCompare(b[sourceColumns] ?? '');
  if (from !== 0) return from;
  const [toA, toB] = [a[sourceColumns + 1] ?? null, b[sourceColumns + 1] ?? null];
  if (toA === toB) return 0;
  if (toA === null) return 1;
  if (toB === null) return -1;
  return toA.localeCompare(toB);
}
