import { Pool, type PoolClient, type PoolConfig } from 'pg';
import { ConnectionGate, type ConnectionGateOptions } from './connection-gate';

type ConnectCallback = (error: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * A pg pool (PostgreSQL's protocol: PostgreSQL and Redshift) whose every checkout passes through its ConnectionGate,
 * pool.query's included: the gate, sized as the pool, hands connections out in line, so pg's own queue never waits
 * and its connectionTimeoutMillis bounds only the opening of a connection. A client goes back to the gate when it is
 * released.
 */
export class GatedPgPool extends Pool {
  readonly gate: ConnectionGate;

  constructor(config: PoolConfig, gate: Omit<ConnectionGateOptions, 'size'>) {
    super(config);
    this.gate = new ConnectionGate({ ...gate, size: config.max ?? 10 });
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<PoolClient> | void {
    // pg-pool's query() asks with a callback, for one statement; the service's own checkouts ask for a promise.
    const checkedOut = this.gatedConnect(callback === undefined);
    if (callback === undefined) return checkedOut;
    checkedOut.then(
      (client) => callback(undefined, client, (release) => client.release(release as Error | boolean | undefined)),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), undefined, () => undefined),
    );
  }

  private async gatedConnect(held: boolean): Promise<PoolClient> {
    const place = await this.gate.checkout({ held });
    let client: PoolClient;
    try {
      client = await (super.connect as () => Promise<PoolClient>).call(this);
    } catch (error) {
      place.release();
      throw error;
    }
    // pg-pool gives every checkout a release of its own: this one gives the place back too.
    const release = client.release.bind(client);
    client.release = (error?: Error | boolean) => {
      place.release();
      release(error);
    };
    return client;
  }
}

/** Runs `work` with `count` connections of the pool taken at once (a pool that is not gated, a test's, just runs it). */
export function withPoolConnections<T>(pool: Pool, count: number, work: () => Promise<T>): Promise<T> {
  return pool instanceof GatedPgPool ? pool.gate.withLease(count, work) : work();
}
