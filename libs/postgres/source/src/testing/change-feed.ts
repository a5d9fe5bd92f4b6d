import type { TableDefinition } from '@svc/contracts';
import type { ReadOptions, SourceConnector } from '@svc/engines';
import type { Client } from 'pg';
import { parseCsv, readAll, sortedRows, type CsvField } from './source-fixture';

/**
 * The read horizon is the cluster's oldest transaction that has written, and the log-capture specs share their server
 * with every e2e suite whose source reads from the log (workloads, the relay writing a large load's changes): in a CI
 * run one held it for over 20 s, the reads ending at the same version all along. Waiting is right (a transaction still
 * open may commit below the horizon); the deadline stays inside the suites' 60-s test timeout.
 */
const DEADLINE_MS = 50_000;

/**
 * Runs `sql` in one transaction of `client` and returns the transaction's id. The id lets a test wait
 * until change reads have moved past it: the read horizon is cluster-wide, so transactions of other
 * tests on the same server may hold it back for a while.
 */
export async function commitAndGetXid(client: Client, sql: string): Promise<bigint> {
  await client.query('begin');
  try {
    await client.query(sql);
    const result = await client.query<{ xid: string }>('select pg_current_xact_id()::text as xid');
    await client.query('commit');
    return BigInt(result.rows[0]?.xid ?? '0');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

export interface ChangeReadResult {
  fromVersion: string;
  toVersion: string;
  /** Sorted, for comparisons that do not care about order. */
  rows: CsvField[][];
  /** As the read streamed them. */
  arrived: CsvField[][];
  rowCount: number;
}

/** Follows one table's changes from a watermark, as the extractor would. */
export class ChangeFeed {
  constructor(
    private readonly source: SourceConnector,
    private readonly definition: TableDefinition,
    public watermark: string,
    private readonly readOptions: ReadOptions = {},
  ) {}

  /** One read from the watermark; the watermark does not move. */
  async read(limit = 1_000_000, from = this.watermark): Promise<ChangeReadResult> {
    const changes = await this.source.readChanges(this.definition, from, limit, this.readOptions);
    const { csv, rowCount } = await readAll(changes);
    const arrived = parseCsv(csv);
    return { fromVersion: from, toVersion: changes.toVersion, rows: sortedRows(arrived), arrived, rowCount };
  }

  /** Reads from the watermark until the read covers transaction `xid`, then moves the watermark to its end. */
  async readThrough(xid: bigint, limit = 1_000_000): Promise<ChangeReadResult> {
    const result = await this.readUntil((read) => BigInt(read.toVersion) > xid, limit);
    this.watermark = result.toVersion;
    return result;
  }

  /** Repeats the same read until `done` holds (within a deadline); the watermark does not move. */
  async readUntil(done: (read: ChangeReadResult) => boolean, limit = 1_000_000): Promise<ChangeReadResult> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const read = await this.read(limit);
      if (done(read)) return read;
      if (Date.now() > deadline) throw new Error(`change reads did not get there within ${DEADLINE_MS} ms; last ended at ${read.toVersion}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
