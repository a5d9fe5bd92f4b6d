import { AsyncLocalStorage } from 'node:async_hooks';
import { EngineError, type EngineErrorKind } from '../errors';

/**
 * Every connection a pool gives out passes through its gate: at most `size` are out at once, handed out first come,
 * first served. A work that needs several at once (validation: a pinned snapshot and a live session) takes them in one
 * step (withLease), so that no work ever waits on a pool while holding one of its connections: works that each held
 * one and waited for another used to exhaust the pool together and wait on each other until the connect timeout.
 *
 * The connections a work holds are recorded in its connection scope (inConnectionScope, one per unit of work; and
 * inside withLease): a work that asks a gate for a connection while it holds one of the same gate, beyond what its
 * lease took, is refused at once (NestedConnectionAcquireError), so the deadlock cannot come back unseen.
 */
export interface ConnectionGateOptions {
  /** Whose connections, as failures name the endpoint: `Source`, `Staging`, `Warehouse`, `Control database`. */
  owner: string;
  /** Connections out at most: the pool's own maximum. */
  size: number;
  /** How long a work waits for free connections before it is told the pool is busy (and retried). */
  waitMs: number;
  /** What sets the pool's size (and the work sharing it), for the busy message. */
  sizeSetting: string;
}

/** How a connection is checked out of a pool. */
export interface CheckoutOptions {
  /**
   * False for a connection held for one statement that waits on nothing else (pg's pool.query): asked for while the
   * work holds a connection of the gate it is still refused, but it is not recorded, so that statements of one work
   * may run side by side.
   */
  held?: boolean;
}

/** A connection's place in its gate: `release` gives it back (once; later calls do nothing). */
export interface Checkout {
  release(): void;
}

/** A pool that could not give connections in time: retried, worded with the pool's size and the settings that change it. */
export class PoolBusyError extends EngineError {
  readonly kind: EngineErrorKind = 'transient';
  override readonly serviceWorded = true;

  constructor(gate: ConnectionGateOptions, count: number) {
    super(
      `${gate.owner}: busy: all ${gate.size} of the service's connections to it stayed in use by other work for ${Math.ceil(gate.waitMs / 1000)} s ` +
        `(this work needs ${count} at once); it is retried. ${gate.sizeSetting}`,
    );
    this.name = 'PoolBusyError';
  }
}

/** A programming error: the work would wait on a pool while holding one of its connections (a deadlock under load). */
export class NestedConnectionAcquireError extends Error {
  constructor(owner: string, held: number) {
    super(
      `${owner}: a work holding ${held} connection(s) of this pool asked it for another, and would wait on itself when the pool is busy: ` +
        'pass the held session down, or take every connection the work needs at once (ConnectionGate.withLease)',
    );
    this.name = 'NestedConnectionAcquireError';
  }
}

/** Connections a work took at once (withLease), drawn one by one by the pool's checkouts inside it. */
interface Lease {
  count: number;
  drawn: number;
}

/** The connections one unit of work holds, gate by gate, and the leases it works within. */
class ConnectionScope {
  constructor(
    readonly held: Map<ConnectionGate, number> = new Map(),
    readonly leases: Map<ConnectionGate, Lease> = new Map(),
  ) {}

  count(gate: ConnectionGate): number {
    return this.held.get(gate) ?? 0;
  }

  add(gate: ConnectionGate, count: number): void {
    const total = this.count(gate) + count;
    if (total <= 0) this.held.delete(gate);
    else this.held.set(gate, total);
  }
}

const scopes = new AsyncLocalStorage<ConnectionScope>();

/** Runs one unit of work (a message's handling, a request's) with its own record of the connections it holds. */
export function inConnectionScope<T>(work: () => Promise<T>): Promise<T> {
  return scopes.run(new ConnectionScope(), work);
}

interface Waiter {
  count: number;
  grant(): void;
}

export class ConnectionGate {
  private free: number;
  private readonly waiters: Waiter[] = [];

  constructor(readonly options: ConnectionGateOptions) {
    if (!Number.isSafeInteger(options.size) || options.size < 1) throw new RangeError(`${options.owner}: a pool holds at least one connection, not ${options.size}`);
    this.free = options.size;
  }

  get size(): number {
    return this.options.size;
  }

  /** Connections out now. */
  get inUse(): number {
    return this.options.size - this.free;
  }

  /**
   * A place for one connection the pool is about to give: drawn from the work's lease when it holds one of this gate,
   * refused when the work already holds a connection of the gate otherwise, else taken in line (up to waitMs).
   */
  async checkout(options: CheckoutOptions = {}): Promise<Checkout> {
    const scope = scopes.getStore();
    const lease = scope?.leases.get(this);
    if (lease !== undefined) {
      if (lease.drawn >= lease.count) throw new NestedConnectionAcquireError(this.options.owner, lease.drawn);
      lease.drawn += 1;
      return once(() => (lease.drawn -= 1));
    }
    const held = scope?.count(this) ?? 0;
    if (held > 0) throw new NestedConnectionAcquireError(this.options.owner, held);
    await this.take(1);
    const recorded = options.held === false ? undefined : scope;
    recorded?.add(this, 1);
    return once(() => {
      recorded?.add(this, -1);
      this.give(1);
    });
  }

  /** Runs `work` with `count` connections taken at once: the pool's checkouts inside it draw from them, and no more. */
  async withLease<T>(count: number, work: () => Promise<T>): Promise<T> {
    const outer = scopes.getStore();
    if (outer?.leases.has(this) || (outer?.count(this) ?? 0) > 0) throw new NestedConnectionAcquireError(this.options.owner, outer?.leases.get(this)?.count ?? outer?.count(this) ?? 0);
    if (count > this.options.size) throw new PoolBusyError({ ...this.options, waitMs: 0 }, count);
    await this.take(count);
    const inner = new ConnectionScope(new Map(outer?.held ?? []), new Map(outer?.leases ?? []));
    inner.leases.set(this, { count, drawn: 0 });
    outer?.add(this, count);
    try {
      return await scopes.run(inner, work);
    } finally {
      outer?.add(this, -count);
      this.give(count);
    }
  }

  private take(count: number): Promise<void> {
    if (this.waiters.length === 0 && this.free >= count) {
      this.free -= count;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        count,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new PoolBusyError(this.options, count));
        // It may have been first in line, holding back smaller asks behind it.
        this.grantWaiting();
      }, this.options.waitMs);
      timer.unref?.();
      this.waiters.push(waiter);
    });
  }

  private give(count: number): void {
    this.free = Math.min(this.options.size, this.free + count);
    this.grantWaiting();
  }

  /** First come, first served: a larger ask first in line is not overtaken by smaller ones (it would starve). */
  private grantWaiting(): void {
    for (;;) {
      const first = this.waiters[0];
      if (first === undefined || first.count > this.free) return;
      this.waiters.shift();
      this.free -= first.count;
      first.grant();
    }
  }
}

function once(release: () => void): Checkout {
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      release();
    },
  };
}
