import { ADMIN_KEY, callSigned, type TestStack } from '@svc/system-testing';
import { LiveReplication, liveCreateRequest, type WorkloadProgress } from './live-replication';
import { CUSTOMERS, ORDERS, SALES_ITEMS } from './live-workload';
import type { TableShape } from './pipeline-workload';
import type { SqlTarget } from './sql-target';

/** LIVE_SCHEMA's tables, all keyed. */
export const PAIR_TABLES: TableShape[] = [ORDERS, CUSTOMERS, SALES_ITEMS];

export interface ReplicationPairOptions {
  stack: TestStack;
  /** A session on the source that no workload uses. */
  source: SqlTarget;
  warehouse: SqlTarget;
  workload?: WorkloadProgress;
  bucketName: string;
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
        sourceConnectionString: this.options.stack.source.url,
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
    for (const shape of PAIR_TABLES) {
      const type1 = this.type1.warehouseTable(shape);
      const [keys] = await warehouse.query<{ n: number }>(`SELECT (count(*) - count(DISTINCT (${shape.orderBy})))::int AS n FROM ${type1}`);
      if (keys?.n !== 0) found.push(`${type1}: ${keys?.n} rows share a key`);

      const type2 = this.type2.warehouseTable(shape);
      const [current] = await warehouse.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${type2} WHERE svc_sys_is_current GROUP BY ${shape.orderBy} HAVING count(*) > 1) d`,
      );
      if (current?.n !== 0) found.push(`${type2}: ${current?.n} keys with more than one current row`);
      const [repeated] = await warehouse.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (
           SELECT v, lag(v) OVER (PARTITION BY k ORDER BY svc_sys_valid_from, svc_sys_valid_to NULLS LAST) AS previous
             FROM (SELECT (SELECT r::text FROM (SELECT ${shape.columns}) r) AS v, ROW(${shape.orderBy})::text AS k, svc_sys_valid_from, svc_sys_valid_to
                     FROM ${type2}) versions) successive
          WHERE v = previous`,
      );
      if (repeated?.n !== 0) found.push(`${type2}: ${repeated?.n} versions repeat the version before them`);
    }
    return found;
  }
}
