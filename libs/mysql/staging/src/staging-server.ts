import { ConnectionGate, isRecord, type ConnectionGateOptions, type TransactionStep } from '@svc/engines';
import { SESSION_TIME_ZONE } from '@svc/mysql/common';
import type { ConnectionOptions, ResultSetHeader, RowDataPacket } from 'mysql2';
import { createPool, type Pool, type PoolConnection } from 'mysql2/promise';
import { DDL_UNLOCK_SQL, DDL_LOCK_NAME } from './staging-sql';
import type { StatementValue } from './staging-values';

/** One connection inside one transaction of the staging protocol. */
export interface MysqlSession {
  readonly connection: PoolConnection;
  /** The collation of the server's text columns (stagingCollation). */
  readonly collation: string;
  /** GET_LOCK's lock belongs to the session, not the transaction: the transaction's end releases it. */
  holdsDdlLock: boolean;
}

/**
 * Every session of the staging: UTC (DATETIME keeps an instant's reading in UTC), strict (a value that does not fit is
 * refused, never cut or folded), no NO_BACKSLASH_ESCAPES (mysql2 writes parameters with backslash escapes), lock
 * waits as long as a batch can take (InnoDB's default is 50 s; PostgreSQL's advisory locks wait without limit).
 */
const SESSION_SQL = [
  `SET SESSION time_zone = '${SESSION_TIME_ZONE}', SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', SESSION innodb_lock_wait_timeout = 3600`,
  'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
];

/**
 * Text collations that compare byte for byte and keep trailing spaces apart, best first: MariaDB's `_nopad_bin`
 * (10.2+) and MySQL 8's `utf8mb4_0900_bin`, both NO PAD. `utf8mb4_bin` is PAD SPACE ("Trailing Space Handling in
 * Comparisons"; MariaDB "Character Sets and Collations": NO PAD collations): 'a' and 'a ' would be one key.
 */
export const NO_PAD_COLLATIONS = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'] as const;
export const PAD_SPACE_COLLATION = 'utf8mb4_bin';

/** The staging server's pool, its connections handed out through a gate the pool's size (docs/ENGINES.md, "Connections"). */
export class StagingServer {
  private readonly pool: Pool;
  private readonly gate: ConnectionGate;
  /** Connections whose session settings are made (the pool keeps connections across checkouts). */
  private readonly prepared = new WeakSet<object>();
  /** Connections whose state is unknown (a failed ROLLBACK or unlock): destroyed instead of given back. */
  private readonly discarded = new WeakSet<PoolConnection>();
  private collation: Promise<string> | undefined;

  constructor(options: ConnectionOptions, maxConnections: number, gate: Omit<ConnectionGateOptions, 'size'>) {
    // Every statement names its database: the connection names none, so that a database dropped and created again
    // under the open pool leaves its connections usable.
    const server: ConnectionOptions = { ...options };
    delete server.database;
    this.pool = createPool({ ...server, connectionLimit: maxConnections, waitForConnections: true, queueLimit: 0, maxIdle: 1, idleTimeout: 60_000 });
    this.gate = new ConnectionGate({ ...gate, size: maxConnections });
  }

  /** Runs `work` on one connection of the pool, its session prepared; a connection that failed is destroyed, not reused. */
  async withConnection<T>(work: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const checkout = await this.gate.checkout();
    let connection: PoolConnection | undefined;
    let broken = false;
    try {
      connection = await this.pool.getConnection();
      if (!this.prepared.has(connection.connection)) {
        for (const statement of SESSION_SQL) await connection.query(statement);
        this.prepared.add(connection.connection);
      }
      return await work(connection);
    } catch (error) {
      broken = isRecord(error) && error['fatal'] === true;
      throw error;
    } finally {
      if (connection !== undefined) {
        if (broken || this.discarded.has(connection)) connection.destroy();
        else connection.release();
      }
      checkout.release();
    }
  }

  /**
   * Runs `work` in one transaction. autocommit is off rather than START TRANSACTION: DDL commits the transaction it
   * runs in, and a statement after it then starts the next one instead of running on its own. The DDL lock, when
   * `work` took it, is released when the transaction ends; a connection whose ending failed is destroyed.
   */
  async inTransaction<T>(work: (session: MysqlSession) => Promise<TransactionStep<T>>): Promise<T> {
    const collation = await this.textCollation();
    return this.withConnection(async (connection) => {
      const session: MysqlSession = { connection, collation, holdsDdlLock: false };
      await connection.query('SET autocommit = 0');
      try {
        const step = await work(session);
        await connection.query(step.commit ? 'COMMIT' : 'ROLLBACK');
        return step.result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => this.discarded.add(connection));
        throw error;
      } finally {
        await this.endSession(session);
      }
    });
  }

  /** Statements of their own (autocommit): the batch log's and fences' reads, the catalog's. */
  async rows(sql: string, values: readonly StatementValue[] = []): Promise<RowDataPacket[]> {
    return this.withConnection((connection) => sessionRows(connection, sql, values));
  }

  /**
   * The text collation of the server, asked once: the first NO PAD binary collation it has, else utf8mb4_bin (then
   * two keys differing only in trailing spaces are one: docs/ENGINES.md, "MySQL and MariaDB").
   */
  textCollation(): Promise<string> {
    this.collation ??= this.rows(`SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN (${NO_PAD_COLLATIONS.map(() => '?').join(', ')})`, [...NO_PAD_COLLATIONS])
      .then((rows) => {
        const present = new Set(rows.map((row) => String(row['name'])));
        return NO_PAD_COLLATIONS.find((name) => present.has(name)) ?? PAD_SPACE_COLLATION;
      })
      .catch((error: unknown) => {
        this.collation = undefined;
        throw error;
      });
    return this.collation;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async endSession(session: MysqlSession): Promise<void> {
    const { connection } = session;
    if (this.discarded.has(connection)) return;
    try {
      await connection.query('SET autocommit = 1');
      if (session.holdsDdlLock) {
        await connection.query(DDL_UNLOCK_SQL, [DDL_LOCK_NAME]);
        session.holdsDdlLock = false;
      }
    } catch {
      // The server releases a named lock when the connection ends.
      this.discarded.add(connection);
    }
  }
}

export async function sessionRows(connection: PoolConnection, sql: string, values: readonly StatementValue[] = []): Promise<RowDataPacket[]> {
  const [rows] = await connection.query<RowDataPacket[]>(sql, [...values]);
  return rows;
}

export async function affectedRows(connection: PoolConnection, sql: string, values: readonly StatementValue[] = []): Promise<number> {
  const [result] = await connection.query<ResultSetHeader>(sql, [...values]);
  return result.affectedRows;
}
