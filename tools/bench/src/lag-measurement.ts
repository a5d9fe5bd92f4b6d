import type { Client } from 'pg';
import { BENCH_WAREHOUSE_SCHEMA, PROBE_INTERVAL_MS, WAREHOUSE_POLL_MS } from './bench-settings';

export const PROBE_TABLE_SQL = 'CREATE TABLE public.bench_probe (id bigserial PRIMARY KEY, written_at timestamptz NOT NULL)';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Runs `step` every `intervalMs` (on a fixed grid, so a slow step does not shift the later ones) until
 * stopped. A failed step is counted and the ticking goes on.
 */
class Ticker {
  readonly failures: string[] = [];
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly step: () => Promise<void>,
  ) {}

  start(): void {
    this.loop = (async () => {
      let next = performance.now();
      while (!this.stopped) {
        await this.step().catch((error: unknown) => this.failures.push(error instanceof Error ? error.message : String(error)));
        next += this.intervalMs;
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        else next = performance.now();
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

/** Inserts a probe row every PROBE_INTERVAL_MS from its own connection, stamped with clock_timestamp(). */
export class ProbeWriter {
  readonly written: string[] = [];
  private readonly ticker = new Ticker(PROBE_INTERVAL_MS, async () => {
    const { rows } = await this.client.query<{ id: string }>('INSERT INTO public.bench_probe (written_at) VALUES (clock_timestamp()) RETURNING id');
    if (rows[0]) this.written.push(rows[0].id);
  });

  constructor(private readonly client: Client) {}

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  get failures(): string[] {
    return this.ticker.failures;
  }
}

/**
 * Polls the warehouse every WAREHOUSE_POLL_MS for probe rows it has not seen; a probe's lag is the
 * database clock when it is first seen minus its written_at (one clock, no skew).
 */
export class ProbeWatcher {
  /** Lag in seconds by probe id. */
  readonly lagById = new Map<string, number>();
  private lastId = '0';
  private readonly ticker = new Ticker(WAREHOUSE_POLL_MS, async () => {
    const { rows } = await this.client.query<{ id: string; lag: number }>(
      `SELECT id::text, extract(epoch FROM clock_timestamp() - written_at)::float8 AS lag
         FROM "${BENCH_WAREHOUSE_SCHEMA}".bench_probe WHERE id > $1 ORDER BY id`,
      [this.lastId],
    );
    for (const row of rows) {
      if (!this.lagById.has(row.id)) this.lagById.set(row.id, row.lag);
    }
    // The writer is serial, so probe ids commit in order: nothing below the highest id seen can come later.
    const last = rows[rows.length - 1];
    if (last) this.lastId = last.id;
  });

  constructor(private readonly client: Client) {}

  start(): void {
    this.ticker.start();
  }

  /** Waits until every id in `ids` was seen or the deadline passes, then stops polling. */
  async drain(ids: string[], deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (Date.now() < deadline && ids.some((id) => !this.lagById.has(id))) await sleep(WAREHOUSE_POLL_MS);
    await this.ticker.stop();
  }

  get failures(): string[] {
    return this.ticker.failures;
  }
}

/** `tps = 812.4 (without initial connection time)` and `latency average = 4.9 ms` from pgbench's report. */
export function parsePgbenchReport(output: string): { tps: number; latencyMs: number; transactions: number } {
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output) ?? /tps = ([\d.]+)/.exec(output);
  const latency = /latency average = ([\d.]+) ms/.exec(output);
  const transactions = /number of transactions actually processed: (\d+)/.exec(output);
  return { tps: Number(tps?.[1] ?? Number.NaN), latencyMs: Number(latency?.[1] ?? Number.NaN), transactions: Number(transactions?.[1] ?? Number.NaN) };
}
