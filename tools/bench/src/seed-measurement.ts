import type { Pool } from 'pg';
import type { TestStack } from '@svc/system-testing';
import type { S3ObjectEvent } from '@svc/testing';
import { createReplication, describeReplication } from './bench-api';
import { BENCH_WAREHOUSE_SCHEMA } from './bench-settings';

export interface SeedResult {
  replicationId: string;
  /** From the Create request to every table settled and every warehouse count equal to the source's. */
  seconds: number;
  rows: number;
  /** Seconds from Create until each table was Tracking/Untracked, by `[schema].[table]`. */
  settledAfter: Record<string, number>;
  /** Batch data files the stagers wrote to S3, and when (seconds after Create) the first and last appeared. */
  files: { count: number; firstAt: number; lastAt: number };
}

const POLL_MS = 250;
const DEADLINE_MS = 60 * 60_000;

export async function rowCounts(pool: Pool, schema: string, tables: string[]): Promise<Record<string, number>> {
  const counts = await Promise.all(
    tables.map(async (table) => {
      try {
        const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}"."${table}"`);
        return Number(rows[0]?.n ?? -1);
      } catch (error) {
        if ((error as { code?: string }).code === '42P01') return -1; // not created yet
        throw error;
      }
    }),
  );
  return Object.fromEntries(tables.map((table, index) => [table, counts[index] ?? -1]));
}

/**
 * Creates the replication and waits for the seed: Describe until every source table is Tracking or
 * Untracked, then warehouse row counts until they equal the source's (read once; the source is quiet).
 */
export async function measureSeed(stack: TestStack, source: Pool, warehouse: Pool, tables: string[], options: { sourceUrl?: string } = {}): Promise<SeedResult> {
  const expected = await rowCounts(source, 'public', tables);
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const files = new FileTimeline(stack.s3.events, elapsed);
  try {
    const { replicationId, settledAfter } = await seedToTheEnd(stack, warehouse, tables, expected, elapsed, options.sourceUrl);
    const seconds = elapsed();
    return { replicationId, seconds, rows: Object.values(expected).reduce((sum, n) => sum + n, 0), settledAfter, files: files.summary() };
  } finally {
    files.stop();
  }
}

/** When each data file showed up in the (in-process) S3 server, observed every 100 ms. */
class FileTimeline {
  private readonly seenAt: number[] = [];
  private checked: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly events: S3ObjectEvent[],
    private readonly elapsed: () => number,
  ) {
    this.checked = events.length;
    this.timer = setInterval(() => this.check(), 100);
  }

  private check(): void {
    for (; this.checked < this.events.length; this.checked++) {
      const event = this.events[this.checked];
      if (event?.name.startsWith('ObjectCreated') && event.key.endsWith('.csv.gz')) this.seenAt.push(this.elapsed());
    }
  }

  summary(): SeedResult['files'] {
    this.check();
    return { count: this.seenAt.length, firstAt: this.seenAt[0] ?? Number.NaN, lastAt: this.seenAt[this.seenAt.length - 1] ?? Number.NaN };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

async function seedToTheEnd(
  stack: TestStack,
  warehouse: Pool,
  tables: string[],
  expected: Record<string, number>,
  elapsed: () => number,
  sourceUrl: string | undefined,
): Promise<{ replicationId: string; settledAfter: Record<string, number> }> {
  const replicationId = await createReplication(stack, sourceUrl);
  const settledAfter: Record<string, number> = {};
  while (Object.keys(settledAfter).length < tables.length) {
    if (elapsed() * 1000 > DEADLINE_MS) throw new Error('the seed did not finish within an hour');
    const described = await describeReplication(stack, replicationId);
    for (const table of described.tables) {
      if (table.phase === 'Error' || described.status === 'Failed') {
        throw new Error(`seeding failed: ${table.name}: ${table.lastError ?? described.lastError ?? 'no error recorded'}`);
      }
      if ((table.phase === 'Tracking' || table.phase === 'Untracked') && settledAfter[table.name] === undefined) settledAfter[table.name] = elapsed();
    }
    await sleep(POLL_MS);
  }
  for (;;) {
    const counts = await rowCounts(warehouse, BENCH_WAREHOUSE_SCHEMA, tables);
    if (tables.every((table) => counts[table] === expected[table])) break;
    if (elapsed() * 1000 > DEADLINE_MS) throw new Error(`warehouse counts ${JSON.stringify(counts)} never reached ${JSON.stringify(expected)}`);
    await sleep(POLL_MS);
  }
  return { replicationId, settledAfter };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
