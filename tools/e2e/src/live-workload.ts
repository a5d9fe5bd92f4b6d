import type { WorkloadProgress } from './live-replication';
import { Increment, allOf, anyOf, insert, keyIn, keyIs, remove, transaction, update, type Transaction } from './suite/changes';
import type { SourceSession } from './suite/engine-fixture';
import type { Row, TableSpec } from './suite/table-spec';

/** Source tables of the live suites: two keyed tables in `public`, one with a composite key in `sales`. */
export const ORDERS: TableSpec = {
  schema: 'public',
  name: 'orders',
  columns: [
    { name: 'id', type: 'bigint', nullable: false },
    { name: 'customer_id', type: 'int', nullable: false },
    { name: 'amount', type: 'decimal(12,2)' },
    { name: 'status', type: 'text' },
    { name: 'updated_at', type: 'timestamptz' },
  ],
  primaryKey: ['id'],
};
export const CUSTOMERS: TableSpec = {
  schema: 'public',
  name: 'customers',
  columns: [
    { name: 'id', type: 'int', nullable: false },
    { name: 'name', type: 'text' },
    { name: 'city', type: 'text' },
  ],
  primaryKey: ['id'],
};
export const SALES_ITEMS: TableSpec = {
  schema: 'sales',
  name: 'items',
  columns: [
    { name: 'order_id', type: 'bigint', nullable: false },
    { name: 'line', type: 'int', nullable: false },
    { name: 'sku', type: 'text' },
    { name: 'qty', type: 'int', nullable: false },
  ],
  primaryKey: ['order_id', 'line'],
};

const START = Date.UTC(2026, 0, 1);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
/** `cents / 100` as an exact decimal text. */
export const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** An order row as the seed writes them: `id` from `g`, an instant `g` minutes (or `stepMs`) after `start`. */
export function orderRow(g: number, status = 'open', start = START, stepMs = 60000): Row {
  return { id: g, customer_id: 1 + (g % 300), amount: money(g * 125), status, updated_at: new Date(start + g * stepMs) };
}

/** The live tables with their first rows (orders 1–2000, customers 1–300, items of orders 1–1000), for SourceSession.createTables. */
export const LIVE_TABLES: { spec: TableSpec; rows: Row[] }[] = [
  { spec: ORDERS, rows: range(1, 2000).map((g) => orderRow(g)) },
  { spec: CUSTOMERS, rows: range(1, 300).map((g) => ({ id: g, name: `customer ${g}`, city: `city ${g % 17}` })) },
  { spec: SALES_ITEMS, rows: range(1, 1000).flatMap((o) => [1, 2, 3].map((l) => ({ order_id: o, line: l, sku: `sku-${(o * l) % 97}`, qty: l }))) },
];

/**
 * Transaction number `n` of the workload: inserts, updates and deletes on all three tables in one
 * transaction, touching new keys and keys from the seed, so every table keeps changing.
 */
export function workloadTransaction(n: number, now = new Date()): Transaction {
  const order = 100000 + n * 4;
  const seeded = 1 + ((n * 37) % 2000);
  return transaction(
    insert(
      ORDERS,
      [0, 1, 2, 3].map((g) => ({ id: order + g, customer_id: 1 + ((n + g) % 300), amount: money((n % 1000) * 100 + g), status: 'new', updated_at: now })),
    ),
    update(ORDERS, { amount: new Increment(1), status: `paid ${n}`, updated_at: now }, keyIn('id', [seeded, order - 4, order - 40])),
    remove(ORDERS, keyIn('id', [1 + ((n * 53) % 2000), order - 400])),
    insert(CUSTOMERS, [{ id: 10000 + n, name: `customer ${10000 + n}`, city: 'new city' }]),
    update(CUSTOMERS, { city: `moved ${n}` }, keyIn('id', [1 + (n % 300), 10000 + n - 1])),
    remove(CUSTOMERS, keyIn('id', [1 + ((n * 7) % 300), 10000 + n - 30])),
    insert(SALES_ITEMS, [1, 2, 3].map((g) => ({ order_id: order, line: g, sku: 'sku-new', qty: g }))),
    update(SALES_ITEMS, { qty: new Increment(1) }, keyIn('order_id', [1 + (n % 1000), order - 4])),
    remove(SALES_ITEMS, anyOf(allOf(keyIs('order_id', 1 + ((n * 13) % 1000)), keyIs('line', 2)), keyIs('order_id', order - 200))),
  );
}

/** Runs workload transactions back to back (with a short pause) on its own session until stopped. */
export class LiveWorkload implements WorkloadProgress {
  transactions = 0;
  readonly errors: string[] = [];
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly session: SourceSession,
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
        await this.session.apply(workloadTransaction(this.transactions + 1));
        this.transactions += 1;
      } catch (error) {
        this.errors.push((error as Error).message);
        if (this.errors.length > 20) return;
      }
      await new Promise((done) => setTimeout(done, this.pauseMs));
    }
  }
}
