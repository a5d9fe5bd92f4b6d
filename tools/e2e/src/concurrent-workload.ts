import type { SqlTarget } from './sql-target';

/** New keys come from this source sequence, far above the seeded ones (LIVE_SCHEMA), so that no key is ever reused. */
const NEW_KEYS = 'public.workload_keys';
const FIRST_NEW_KEY = 1_000_000;
/** Keys LIVE_SCHEMA seeds: orders 1..2000, customers 1..300, sales.items orders 1..1000. */
const SEEDED = { orders: 2000, customers: 300, itemOrders: 1000 };

/** Errors two concurrent transactions may cause each other; the transaction is rolled back and counted as aborted. */
const CONFLICT_CODES = new Set(['40P01', '40001', '23505']);

export type Random = () => number;

/** Creates what the workload needs in the source besides LIVE_SCHEMA's tables. */
export async function prepareConcurrentWorkload(source: SqlTarget): Promise<void> {
  await source.query(`CREATE SEQUENCE IF NOT EXISTS ${NEW_KEYS} START ${FIRST_NEW_KEY}`);
}

export interface ConcurrentWorkloadOptions {
  /** Opens one more session on the source (one per client). */
  open: () => Promise<SqlTarget>;
  clients: number;
  /** Pause between two transactions of one client. */
  pauseMs?: number;
  random?: Random;
}

/**
 * A pgbench-like workload on LIVE_SCHEMA's tables: `clients` sessions each run random transactions back to
 * back, each mixing inserts, updates, deletes and primary-key updates (a key moved to a new value) over
 * several tables. Deadlocks and other conflicts between the clients roll the transaction back, as they
 * would for an application; any other error is unexpected.
 */
export class ConcurrentWorkload {
  committed = 0;
  aborted = 0;
  readonly unexpected: string[] = [];
  private running = false;

  /** Committed transactions (WorkloadProgress). */
  get transactions(): number {
    return this.committed;
  }

  /** Unexpected errors (WorkloadProgress). */
  get errors(): readonly string[] {
    return this.unexpected;
  }

  private loops: Promise<void>[] = [];
  private sessions: SqlTarget[] = [];
  /** nextval calls asked for so far: new keys lie below FIRST_NEW_KEY + this. */
  private keysAskedFor = 0;
  private readonly random: Random;

  constructor(private readonly options: ConcurrentWorkloadOptions) {
    this.random = options.random ?? Math.random;
  }

  async start(): Promise<void> {
    this.sessions = await Promise.all(Array.from({ length: this.options.clients }, () => this.options.open()));
    this.running = true;
    this.loops = this.sessions.map((session, client) => this.run(session, client + 1));
  }

  /** Stops after each client's transaction in progress; no transaction is left open. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    await Promise.allSettled(this.sessions.map((session) => session.close()));
    this.sessions = [];
  }

  private async run(session: SqlTarget, client: number): Promise<void> {
    let transaction = 0;
    while (this.running) {
      transaction += 1;
      try {
        await session.query(this.randomTransaction(client, transaction));
        this.committed += 1;
      } catch (error) {
        await session.query('ROLLBACK').catch(() => undefined);
        const code = (error as { code?: string }).code;
        if (code !== undefined && CONFLICT_CODES.has(code)) this.aborted += 1;
        else if (this.unexpected.push(`client ${client}: ${(error as Error).message}`) > 20) return;
      }
      await new Promise((done) => setTimeout(done, this.options.pauseMs ?? 20));
    }
  }

  private randomTransaction(client: number, transaction: number): string {
    const tag = `c${client}-t${transaction}`;
    const chance = (probability: number) => this.random() < probability;
    const newKey = () => {
      this.keysAskedFor += 1;
      return `nextval('${NEW_KEYS}')`;
    };
    const orderIds = (count: number) => this.someKeys(SEEDED.orders, count);
    const customerIds = (count: number) => this.someKeys(SEEDED.customers, count);
    const itemOrders = (count: number) => this.someKeys(SEEDED.itemOrders, count);
    const statements: string[] = [];

    if (chance(0.8)) {
      const rows = 1 + Math.floor(this.random() * 4);
      this.keysAskedFor += rows;
      statements.push(`INSERT INTO public.orders (id, customer_id, amount, status, updated_at)
        SELECT nextval('${NEW_KEYS}'), 1 + (g * 7 + ${transaction}) % 300, round((random() * 1000)::numeric, 2), 'new ${tag}', now()
          FROM generate_series(1, ${rows}) g`);
    }
    if (chance(0.8)) statements.push(`UPDATE public.orders SET amount = amount + 1, status = 'paid ${tag}', updated_at = now() WHERE id = ANY(${orderIds(3)})`);
    if (chance(0.5)) statements.push(`DELETE FROM public.orders WHERE id = ANY(${orderIds(2)})`);
    if (chance(0.4)) statements.push(`UPDATE public.orders SET id = ${newKey()}, status = 'moved ${tag}' WHERE id = ANY(${orderIds(1)})`);

    if (chance(0.5)) statements.push(`INSERT INTO public.customers (id, name, city) VALUES (${newKey()}, 'customer ${tag}', 'new city')`);
    if (chance(0.6)) statements.push(`UPDATE public.customers SET city = 'moved ${tag}' WHERE id = ANY(${customerIds(2)})`);
    if (chance(0.3)) statements.push(`DELETE FROM public.customers WHERE id = ANY(${customerIds(1)})`);
    if (chance(0.3)) statements.push(`UPDATE public.customers SET id = ${newKey()} WHERE id = ANY(${customerIds(1)})`);

    if (chance(0.5)) {
      statements.push(`INSERT INTO sales.items (order_id, line, sku, qty)
        SELECT k.id, g, 'sku ${tag}', g FROM (SELECT ${newKey()} AS id) k, generate_series(1, 3) g`);
    }
    if (chance(0.6)) statements.push(`UPDATE sales.items SET qty = qty + 1 WHERE order_id = ANY(${itemOrders(2)})`);
    if (chance(0.3)) statements.push(`DELETE FROM sales.items WHERE order_id = ANY(${itemOrders(1)}) AND line = ${1 + Math.floor(this.random() * 3)}`);
    // A composite key moved: every line of an order to a new order id.
    if (chance(0.3)) statements.push(`UPDATE sales.items SET order_id = ${newKey()} WHERE order_id = ANY(${itemOrders(1)})`);

    if (statements.length === 0) statements.push(`UPDATE public.orders SET status = 'touched ${tag}' WHERE id = ANY(${orderIds(1)})`);
    return `BEGIN;\n${statements.join(';\n')};\nCOMMIT;`;
  }

  /** `count` keys, each either a seeded one (1..seeded) or one the workload may have created since. */
  private someKeys(seeded: number, count: number): string {
    const keys = Array.from({ length: count }, () =>
      this.random() < 0.5 ? 1 + Math.floor(this.random() * seeded) : FIRST_NEW_KEY + Math.floor(this.random() * Math.max(1, this.keysAskedFor)),
    );
    return `ARRAY[${keys.join(', ')}]::bigint[]`;
  }
}
