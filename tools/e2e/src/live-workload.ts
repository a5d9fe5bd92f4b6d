import type { TableShape } from './pipeline-workload';
import type { SqlTarget } from './sql-target';

/** Source tables of the live-alter suite: two keyed tables in `public`, one with a composite key in `sales`. */
export const LIVE_SCHEMA = `
CREATE SCHEMA sales;
CREATE TABLE public.orders (id bigint PRIMARY KEY, customer_id int NOT NULL, amount numeric(12,2), status text, updated_at timestamptz);
CREATE TABLE public.customers (id int PRIMARY KEY, name text, city text);
CREATE TABLE sales.items (order_id bigint, line int, sku text, qty int NOT NULL, PRIMARY KEY (order_id, line));
INSERT INTO public.orders SELECT g, 1 + g % 300, g * 1.25, 'open', timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute'
  FROM generate_series(1, 2000) g;
INSERT INTO public.customers SELECT g, 'customer ' || g, 'city ' || (g % 17) FROM generate_series(1, 300) g;
INSERT INTO sales.items SELECT o, l, 'sku-' || (o * l % 97), l FROM generate_series(1, 1000) o, generate_series(1, 3) l;
`;

// The instant as a number, so the digest does not depend on either session's TimeZone.
export const ORDERS: TableShape = {
  source: 'public.orders',
  target: 'orders',
  columns: 'id, customer_id, amount, status, extract(epoch FROM updated_at) AS updated_at',
  orderBy: 'id',
  keyed: true,
};
export const CUSTOMERS: TableShape = { source: 'public.customers', target: 'customers', columns: 'id, name, city', orderBy: 'id', keyed: true };
export const SALES_ITEMS: TableShape = { source: 'sales.items', target: 'sales_items', columns: 'order_id, line, sku, qty', orderBy: 'order_id, line', keyed: true };

/**
 * Transaction number `n` of the workload: inserts, updates and deletes on all three tables in one
 * transaction, touching new keys and keys from the seed, so every table keeps changing.
 */
export function workloadTransaction(n: number): string {
  const order = 100000 + n * 4;
  const seeded = 1 + ((n * 37) % 2000);
  return `BEGIN;
    INSERT INTO public.orders (id, customer_id, amount, status, updated_at)
      SELECT ${order} + g, 1 + (${n} + g) % 300, ${n % 1000} + g / 100.0, 'new', now() FROM generate_series(0, 3) g;
    UPDATE public.orders SET amount = amount + 1, status = 'paid ${n}', updated_at = now() WHERE id IN (${seeded}, ${order - 4}, ${order - 40});
    DELETE FROM public.orders WHERE id IN (${1 + ((n * 53) % 2000)}, ${order - 400});
    INSERT INTO public.customers (id, name, city) VALUES (${10000 + n}, 'customer ${10000 + n}', 'new city');
    UPDATE public.customers SET city = 'moved ${n}' WHERE id IN (${1 + (n % 300)}, ${10000 + n - 1});
    DELETE FROM public.customers WHERE id IN (${1 + ((n * 7) % 300)}, ${10000 + n - 30});
    INSERT INTO sales.items (order_id, line, sku, qty) SELECT ${order}, g, 'sku-new', g FROM generate_series(1, 3) g;
    UPDATE sales.items SET qty = qty + 1 WHERE order_id IN (${1 + (n % 1000)}, ${order - 4});
    DELETE FROM sales.items WHERE (order_id = ${1 + ((n * 13) % 1000)} AND line = 2) OR order_id = ${order - 200};
    COMMIT;`;
}

/** Runs workload transactions back to back (with a short pause) on its own connection until stopped. */
export class LiveWorkload {
  transactions = 0;
  readonly errors: string[] = [];
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly db: SqlTarget,
    private readonly pauseMs = 25,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** Stops after the transaction in progress; no transaction is left open. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.db.query(workloadTransaction(this.transactions + 1));
        this.transactions += 1;
      } catch (error) {
        this.errors.push((error as Error).message);
        await this.db.query('ROLLBACK').catch(() => undefined);
        if (this.errors.length > 20) return;
      }
      await new Promise((done) => setTimeout(done, this.pauseMs));
    }
  }
}
