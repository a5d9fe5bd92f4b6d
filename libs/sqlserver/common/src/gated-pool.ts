import { ConnectionGate, type Checkout, type ConnectionGateOptions } from '@svc/engines';
import type { ConnectionPool } from 'mssql';

type AcquireCallback = (error: Error | null, connection?: unknown, config?: unknown) => void;

/** What mssql's Request, Transaction and PreparedStatement call on their pool (not in its type declarations). */
interface ConnectionLending {
  acquire(requester: unknown, callback?: AcquireCallback): unknown;
  release(connection: unknown): unknown;
  config?: unknown;
}

/**
 * Puts mssql's pool behind a ConnectionGate sized as the pool: every connection its requests, transactions and
 * prepared statements acquire is first given a place by the gate (in line; never to a work that already holds one),
 * so that tarn's own queue never waits and no work waits on the pool while holding one of its connections. A
 * transaction or prepared statement holds its connection until it ends (recorded in the work's connection scope);
 * a request on the pool holds one for a single statement.
 */
export function gateMssqlPool(pool: ConnectionPool, gate: ConnectionGate): ConnectionPool {
  const lending = pool as unknown as ConnectionLending;
  const acquire = lending.acquire.bind(pool);
  const release = lending.release.bind(pool);
  const places = new Map<unknown, Checkout>();
  const gatedAcquire = async (requester: unknown): Promise<unknown> => {
    const place = await gate.checkout({ held: holdsItsConnection(requester) });
    try {
      const connection = await acquire(requester);
      places.set(connection, place);
      return connection;
    } catch (error) {
      place.release();
      throw error;
    }
  };
  lending.acquire = (requester, callback) => {
    const acquired = gatedAcquire(requester);
    if (typeof callback !== 'function') return acquired;
    acquired.then(
      (connection) => process.nextTick(callback, null, connection, lending.config),
      (error: unknown) => process.nextTick(callback, error instanceof Error ? error : new Error(String(error))),
    );
    return pool;
  };
  lending.release = (connection) => {
    const place = places.get(connection);
    places.delete(connection);
    try {
      return release(connection);
    } finally {
      place?.release();
    }
  };
  return pool;
}

/** The gate of an mssql pool of `max` connections (tarn's `pool.max`, mssql's default 10). */
export function mssqlPoolGate(max: number | undefined, gate: Omit<ConnectionGateOptions, 'size'>): ConnectionGate {
  return new ConnectionGate({ ...gate, size: max ?? 10 });
}

/** A Transaction (begin) or PreparedStatement (prepare) keeps its connection past one statement; a Request does not. */
function holdsItsConnection(requester: unknown): boolean {
  const shape = requester as { begin?: unknown; prepare?: unknown };
  return typeof shape.begin === 'function' || typeof shape.prepare === 'function';
}
