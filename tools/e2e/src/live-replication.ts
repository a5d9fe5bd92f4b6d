import type { TestStack } from '@svc/system-testing';
import { POSTGRES_TO_POSTGRES } from './engine-pairs';
import { describeReplication, recentLinesNaming, recentWarnings, type DescribeJson } from './replication-api';
import type { Condition } from './suite/changes';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';
import { tableLabel, type Digest, type TableSpec } from './suite/table-spec';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export const sameDigest = (left: Digest | null, right: Digest | null): boolean => JSON.stringify(left) === JSON.stringify(right);
export const sameDigests = (left: (Digest | null)[], right: (Digest | null)[]) => JSON.stringify(left) === JSON.stringify(right);

/** Warehouse schema of the live suites. */
export const LIVE_WAREHOUSE_SCHEMA = 'dw';

export interface LiveRequestOptions {
  sourceConnectionString: string;
  /** The staging database; the stack's PostgreSQL staging database when absent. */
  stagingConnectionString?: string;
  bucketName: string;
  bucketFolderName: string;
  tablesToInclude: string;
  /** Warehouse.DatabaseSchema; default LIVE_WAREHOUSE_SCHEMA. */
  databaseSchema?: string;
  /** Warehouse.ScdType; default Type1. */
  scdType?: 'Type1' | 'Type2';
}

/** A CreateWarehouseReplication body (JSON) of the live suites: PostgreSQL → PostgreSQL, Type1, schema `dw`. */
export function liveCreateRequest(stack: TestStack, options: LiveRequestOptions): Record<string, unknown> {
  return {
    parallelTablesLimit: 4,
    rebuildIndexes: false,
    source: { connectionString: options.sourceConnectionString, encryptDataInTransit: false, changeTrackingRetentionPeriod: '2 Days' },
    staging: { connectionString: options.stagingConnectionString ?? POSTGRES_TO_POSTGRES.stagingConnectionString(stack), encryptDataInTransit: false, replicateCompatibilityLevel: false },
    warehouse: {
      accessType: 'AccessKey',
      accessKey: stack.s3.accessKeyId,
      secretKey: stack.s3.secretAccessKey,
      bucketName: options.bucketName,
      bucketFolderName: options.bucketFolderName,
      regionEndpoint: 'us-east-1',
      retentionDays: 2,
      ...POSTGRES_TO_POSTGRES.warehouse(stack),
      databaseSchema: options.databaseSchema ?? LIVE_WAREHOUSE_SCHEMA,
      scdType: options.scdType ?? 'Type1',
    },
    addUpdateTimestamp: false,
    tablesToInclude: options.tablesToInclude,
  };
}

/** What diagnostics show of a workload (LiveWorkload, ConcurrentWorkload). */
export interface WorkloadProgress {
  transactions: number;
  errors: readonly string[];
}

export interface LiveReplicationOptions {
  stack: TestStack;
  /** A session on the source that the workload does not use. */
  source: SourceSession;
  warehouse: WarehouseSession;
  /** Shown in diagnostics. */
  workload?: WorkloadProgress;
  /** The tables compared by warehouseDigests and waitForWarehouseEqualsSource. */
  tables: TableSpec[];
  /** The replication's Warehouse.DatabaseSchema; default LIVE_WAREHOUSE_SCHEMA. */
  warehouseSchema?: string;
}

/**
 * One replication under test while a workload runs: Describe, digests of source and warehouse, and waits
 * that explain themselves (state, workload errors, the services' warnings) when they time out.
 */
export class LiveReplication {
  replicationId = '';
  /** Type2 after the replication's ScdType changed to it: only current warehouse rows are compared then. */
  scdType: 'Type1' | 'Type2' = 'Type1';
  tables: TableSpec[];

  constructor(private readonly options: LiveReplicationOptions) {
    this.tables = options.tables;
  }

  describe(): Promise<DescribeJson> {
    return describeReplication(this.options.stack, this.replicationId);
  }

  async phases(): Promise<Record<string, string>> {
    return Object.fromEntries((await this.describe()).tables.map((table) => [table.name, table.phase]));
  }

  sourceDigest(spec: TableSpec, where?: Condition): Promise<Digest> {
    return this.options.source.digest(spec, where);
  }

  /** Null while the warehouse table does not exist (yet); Type2: its current rows, which stand for the source's. */
  warehouseDigest(spec: TableSpec, where?: Condition): Promise<Digest | null> {
    return this.options.warehouse.digest(this.warehouseSchema, spec, this.scdType === 'Type2' ? 'current' : 'all', where).catch(() => null);
  }

  /** The replication's Warehouse.DatabaseSchema. */
  get warehouseSchema(): string {
    return this.options.warehouseSchema ?? LIVE_WAREHOUSE_SCHEMA;
  }

  /** One table after another: the warehouse session runs one query at a time. */
  async warehouseDigests(): Promise<(Digest | null)[]> {
    const digests: (Digest | null)[] = [];
    for (const spec of this.tables) digests.push(await this.warehouseDigest(spec));
    return digests;
  }

  /** What to show when a wait times out: the replication's state and the services' latest warnings. */
  async diagnostics(): Promise<string> {
    const state: DescribeJson | null = await this.describe().catch(() => null);
    const shown = state && { status: state.status, lastError: state.lastError, tables: state.tables, alerts: state.alerts };
    const { workload } = this.options;
    const stuck = (state?.tables ?? []).filter((table) => (table.inFlightSeconds ?? 0) >= 5).map((table) => table.name);
    return [
      JSON.stringify(shown),
      `workload: ${workload?.transactions} transactions, errors ${JSON.stringify(workload?.errors.slice(-3))}`,
      ...recentWarnings(this.options.stack),
      ...stuck.map((name) => `lines naming ${name}, whose work has been in flight for 5 s or more:\n${recentLinesNaming(this.options.stack, name).join('\n')}`),
    ].join('\n');
  }

  /**
   * Polls like waitUntil, but gives up at once when the replication is Failed: that state lasts until
   * StartReplication (or DataReplication=true), so waiting longer would only hide the cause.
   */
  async waitFor(probe: () => Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (Date.now() < deadline) {
      if (await probe().catch(() => false)) return;
      if (this.replicationId && (await this.describe().catch(() => null))?.status === 'Failed') {
        throw new Error(`the replication is Failed while waiting for ${what}\n${await this.diagnostics()}`);
      }
      await sleep(100);
    }
    throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}\n${await this.diagnostics()}`);
  }

  /** Waits until no compared warehouse table has changed for `quietMs` (work in flight has landed); returns their digests. */
  async settled(quietMs: number, deadlineMs: number): Promise<(Digest | null)[]> {
    let last = await this.warehouseDigests();
    let since = Date.now();
    await this.waitFor(
      async () => {
        const now = await this.warehouseDigests();
        if (!sameDigests(now, last)) {
          last = now;
          since = Date.now();
        }
        return Date.now() - since >= quietMs;
      },
      deadlineMs,
      'the warehouse to stop changing',
    );
    return last;
  }

  /** Waits until every compared warehouse table differs from `before` (the replication follows the workload). */
  async waitForMovement(before: (Digest | null)[], deadlineMs: number, what: string): Promise<void> {
    await this.waitFor(
      async () => {
        const now = await this.warehouseDigests();
        return now.every((current, index) => !sameDigest(current, before[index] ?? null));
      },
      deadlineMs,
      what,
    );
  }

  /** Waits until each compared warehouse table equals its source table, row for row; the last comparison is in the error. */
  async waitForWarehouseEqualsSource(deadlineMs: number): Promise<void> {
    const comparison = { last: '' };
    await this.waitFor(() => this.warehouseEqualsSource(comparison), deadlineMs, 'the warehouse to equal the source').catch((error: Error) => {
      throw new Error(`${error.message}\nlast comparison: ${comparison.last}`);
    });
  }

  /**
   * Waits until each compared warehouse table equals its source table while the replication keeps moving: it fails
   * when no watermark has moved for `stallMs` (a frozen table), or at `capMs` whatever happens. A backlog a slow
   * machine takes long to apply passes; a table that stops does not.
   */
  async waitForWarehouseEqualsSourceWhileMoving(stallMs: number, capMs: number): Promise<void> {
    const comparison = { last: '' };
    const watermarks = async () => {
      const state = await this.describe().catch(() => null);
      if (state?.status === 'Failed') throw new Error(`the replication is Failed while waiting for the warehouse to equal the source\n${await this.diagnostics()}`);
      return JSON.stringify(state?.tables.map((table) => table.lastVersion ?? null) ?? null);
    };
    const cap = Date.now() + capMs;
    let seen = await watermarks();
    let movedAt = Date.now();
    while (!(await this.warehouseEqualsSource(comparison).catch(() => false))) {
      const now = await watermarks();
      if (now !== seen) [seen, movedAt] = [now, Date.now()];
      const stalledFor = Date.now() - movedAt;
      if (stalledFor >= stallMs || Date.now() >= cap) {
        const why = stalledFor >= stallMs ? `no watermark moved for ${stalledFor} ms` : `still moving after ${capMs} ms`;
        throw new Error(`${why} while waiting for the warehouse to equal the source\n${await this.diagnostics()}\nlast comparison: ${comparison.last}`);
      }
      await sleep(250);
    }
  }

  private async warehouseEqualsSource(comparison: { last: string }): Promise<boolean> {
    for (const spec of this.tables) {
      const [expected, actual] = await Promise.all([this.sourceDigest(spec), this.warehouseDigest(spec)]);
      comparison.last = `${tableLabel(spec)}: source ${JSON.stringify(expected)} warehouse ${JSON.stringify(actual)}`;
      if (!sameDigest(expected, actual)) return false;
    }
    return true;
  }
}
