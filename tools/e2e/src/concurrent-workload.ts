import { Increment, allOf, insert, keyIn, keyIs, remove, transaction, update, type Change } from './suite/changes';
import type { SourceSession } from './suite/engine-fixture';
import { CUSTOMERS, ORDERS, SALES_ITEMS, money } from './live-workload';

/** New keys are counted up from here, far above the seeded ones (LIVE_TABLES), so that no key is ever reused. */
const FIRST_NEW_KEY = 1_000_000;
/** Keys LIVE_TABLES seeds: orders 1..2000, customers 1..300, sales.items orders 1..1000. */
const SEEDED = { orders: 2000, customers: 300, itemOrders: 1000 };

export type Random = () => number;

export interface ConcurrentWorkloadOptions {
  /** Opens one more session on the source (one per client). */
  open: () => Promise<SourceSession>;
  clients: number;
  /** Pause between two transactions of one client. */
  pauseMs?: number;
  random?: Random;
}

/**
 * A pgbench-like workload on the live tables: `clients` sessions each run random transactions back to
 * back, each mixing inserts, updates, deletes and primary-key updates (a key moved to a new value) over
 * several tables. Conflicts between the clients (a deadlock, a serialization failure) roll the transaction
 * back, as they would for an application; any other error is unexpected.
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
  private sessions: SourceSession[] = [];
  /** New keys handed out so far: they lie in FIRST_NEW_KEY .. FIRST_NEW_KEY + this - 1. */
  private keysHandedOut = 0;
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

  private async run(session: SourceSession, client: number): Promise<void> {
    let count = 0;
    while (this.running) {
      count += 1;
      try {
        await session.apply(transaction(...this.randomChanges(client, count)));
        this.committed += 1;
      } catch (error) {
        if (session.isConflict(error)) this.aborted += 1;
        else if (this.unexpected.push(`client ${client}: ${(error as Error).message}`) > 20) return;
      }
      await new Promise((done) => setTimeout(done, this.options.pauseMs ?? 20));
    }
  }

  private randomChanges(client: number, count: number): Change[] {
    const tag = `c${client}-t${count}`;
    const chance = (probability: number) => this.random() < probability;
    const newKey = () => FIRST_NEW_KEY + this.keysHandedOut++;
    const now = new Date();
    const orderIds = (keys: number) => this.someKeys(SEEDED.orders, keys);
    const customerIds = (keys: number) => this.someKeys(SEEDED.customers, keys);
    const itemOrders = (keys: number) => this.someKeys(SEEDED.itemOrders, keys);
    const changes: Change[] = [];

    if (chance(0.8)) {
      const rows = 1 + Math.floor(this.random() * 4);
      changes.push(
        insert(
          ORDERS,
          Array.from({ length: rows }, (_, g) => ({
            id: newKey(),
            customer_id: 1 + (((g + 1) * 7 + count) % 300),
            amount: money(Math.floor(this.random() * 100000)),
            status: `new ${tag}`,
            updated_at: now,
          })),
        ),
      );
    }
    if (chance(0.8)) changes.push(update(ORDERS, { amount: new Increment(1), status: `paid ${tag}`, updated_at: now }, keyIn('id', orderIds(3))));
    if (chance(0.5)) changes.push(remove(ORDERS, keyIn('id', orderIds(2))));
    if (chance(0.4)) changes.push(update(ORDERS, { id: newKey(), status: `moved ${tag}` }, keyIn('id', orderIds(1))));

    if (chance(0.5)) changes.push(insert(CUSTOMERS, [{ id: newKey(), name: `customer ${tag}`, city: 'new city' }]));
    if (chance(0.6)) changes.push(update(CUSTOMERS, { city: `moved ${tag}` }, keyIn('id', customerIds(2))));
    if (chance(0.3)) changes.push(remove(CUSTOMERS, keyIn('id', customerIds(1))));
    if (chance(0.3)) changes.push(update(CUSTOMERS, { id: newKey() }, keyIn('id', customerIds(1))));

    if (chance(0.5)) {
      const order = newKey();
      changes.push(insert(SALES_ITEMS, [1, 2, 3].map((line) => ({ order_id: order, line, sku: `sku ${tag}`, qty: line }))));
    }
    if (chance(0.6)) changes.push(update(SALES_ITEMS, { qty: new Increment(1) }, keyIn('order_id', itemOrders(2))));
    if (chance(0.3)) changes.push(remove(SALES_ITEMS, allOf(keyIn('order_id', itemOrders(1)), keyIs('line', 1 + Math.floor(this.random() * 3)))));
    // A composite key moved: every line of an order to a new order id.
    if (chance(0.3)) changes.push(update(SALES_ITEMS, { order_id: newKey() }, keyIn('order_id', itemOrders(1))));

    if (changes.length === 0) changes.push(update(ORDERS, { status: `touched ${tag}` }, keyIn('id', orderIds(1))));
    return changes;
  }

  /** `keys` keys, each either a seeded one (1..seeded) or one the workload may have created since. */
  private someKeys(seeded: number, keys: number): number[] {
    return Array.from({ length: keys }, () =>
      this.random() < 0.5 ? 1 + Math.floor(this.random() * seeded) : FIRST_NEW_KEY + Math.floor(this.random() * Math.max(1, this.keysHandedOut)),
    );
  }
}
