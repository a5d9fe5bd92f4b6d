import { createHash, randomUUID } from 'node:crypto';
import type { ConnectionPool } from 'mssql';

/**
 * A SQL Server database as its Change Tracking functions answer, for the statements a change read sends
 * before it reads rows. Each answer follows Microsoft's documentation:
 *   - CHANGE_TRACKING_CURRENT_VERSION() is the database's current version; after a restore (or a failover to a
 *     replica that was behind) it is the restored database's, lower than versions a client synchronised to
 *     ("Change Tracking and data restore", https://learn.microsoft.com/en-us/sql/relational-databases/track-changes/work-with-change-tracking-sql-server).
 *   - CHANGE_TRACKING_MIN_VALID_VERSION(object_id) is NULL when Change Tracking is not enabled for the database,
 *     the object id is not valid, or on "insufficient permission to the table specified by the object ID"
 *     (https://learn.microsoft.com/en-us/sql/relational-databases/system-functions/change-tracking-min-valid-version-transact-sql);
 *     reading changes needs VIEW CHANGE TRACKING on the table (the "Security" part of the first page).
 *   - HAS_PERMS_BY_NAME(securable, 'OBJECT', permission) is 1 or 0, NULL for a securable it cannot find
 *     (https://learn.microsoft.com/en-us/sql/t-sql/functions/has-perms-by-name-transact-sql).
 *   - CHANGETABLE(CHANGES t, @last) returns one row per key changed after @last ("versions returned are strictly
 *     greater than last_sync_version"), a deleted key too, from its key columns
 *     (https://learn.microsoft.com/en-us/sql/relational-databases/system-functions/changetable-transact-sql); TOP (n)
 *     returns at most n rows. The double answers `SELECT DISTINCT TOP (n) … FROM CHANGETABLE(CHANGES t, last)` with the
 *     distinct keys of `changes` after `last`, their key_hash the MD5 of the key's text.
 *   - SERVERPROPERTY('ProductVersion') and ('EngineEdition') (https://learn.microsoft.com/en-us/sql/t-sql/functions/serverproperty-transact-sql).
 *   - The database's incarnation (incarnation.ts) from sys.database_recovery_status
 *     (https://learn.microsoft.com/en-us/sql/relational-databases/system-catalog-views/sys-database-recovery-status-transact-sql:
 *     recovery_fork_guid "identifies the current recovery fork"; database_guid is new when RESTORE restores a database
 *     that does not yet exist; the row of another database than master or tempdb is visible to its owner or with VIEW
 *     ANY DATABASE, else the LEFT JOIN gives NULLs and the concatenation NULL) and sys.databases (group_database_id,
 *     "identical on every replica to which this database is joined"; create_date). The view "applies to SQL Server
 *     and Azure SQL Managed Instance": on Azure SQL Database (EngineEdition 5) a statement that names it outside a
 *     branch that does not run fails with error 208, Invalid object name.
 * A statement it does not know fails, so a read that goes past these checks fails the test that did not expect it.
 * Its transactions keep mssql's rules (see MssqlTransactionDouble): one request at a time, no rollback or commit
 * while a request runs; `openTransactions` counts those begun and not ended (each holds a pooled connection).
 */
export interface ChangeTrackingState {
  currentVersion: bigint;
  /** The table's minimum valid version, null when the table is not tracked. */
  tableMinValidVersion: bigint | null;
  /** Whether the login holds VIEW CHANGE TRACKING on the table. */
  mayViewChangeTracking: boolean;
  userName: string;
  /** SERVERPROPERTY: the major version of ProductVersion and EngineEdition (default SQL Server 2019, Enterprise). */
  majorVersion?: number;
  engineEdition?: number;
  /** sys.partitions' row count of the table. */
  rowsEstimate?: number;
  /** Changes recorded by Change Tracking: a key's text and the version of its change. */
  changes?: readonly { version: bigint; key: string }[];
  /** Every statement sent inside a transaction, in order (filled by the double). */
  transactionStatements?: string[];
  /** What the catalog says of the database's life (see restoreDatabase); default: one life, never restored. */
  database?: DatabaseLife;
}

export interface DatabaseLife {
  recoveryForkGuid: string;
  databaseGuid: string;
  /** sys.databases.group_database_id: set for a database joined to an availability group. */
  groupDatabaseId?: string;
  /** sys.databases.create_date (ISO 8601, style 126). */
  createDate: string;
  /** Whether the login sees the database's row of sys.database_recovery_status (owner, or VIEW ANY DATABASE). */
  recoveryStatusVisible?: boolean;
}

const FIRST_LIFE: DatabaseLife = {
  recoveryForkGuid: '6F9619FF-8B86-D011-B42D-00C04FC964FF',
  databaseGuid: '0E984725-C51C-4BF4-9960-E1C80E27ABA0',
  createDate: '2026-01-05T09:00:00.000',
};

/**
 * The database restored from a backup taken at `toVersion` (Microsoft's "Change tracking and data restore"): changes
 * after it are gone and the current version is the backup's. A restore over the database (or of a full backup alone,
 * or to a point in time) starts a new recovery path ("Recovery Paths": a new recovery_fork_guid); restored as a
 * database that did not exist, it also gets a new database_guid; on Azure SQL Database a point-in-time restore is a
 * new database with its own create_date.
 */
export function restoreDatabase(state: ChangeTrackingState, toVersion: bigint, how: { asNewDatabase?: boolean } = {}): void {
  const life = state.database ?? FIRST_LIFE;
  state.database = {
    ...life,
    recoveryForkGuid: randomUUID().toUpperCase(),
    ...(how.asNewDatabase && { databaseGuid: randomUUID().toUpperCase(), createDate: new Date().toISOString().replace('Z', '') }),
  };
  state.currentVersion = toVersion;
  state.changes = (state.changes ?? []).filter((change) => change.version <= toVersion);
}

/** The double's pool: tarn's `max` and `acquireTimeoutMillis` (mssql's config.pool). */
export interface DoublePoolOptions {
  max?: number;
  acquireTimeoutMillis?: number;
}

export function changeTrackingDouble(state: ChangeTrackingState, options: DoublePoolOptions = {}): ConnectionPool {
  const answer = (statement: string): Record<string, unknown>[] => {
    const changed = /^SELECT DISTINCT TOP \((\d+)\)[\s\S]*FROM CHANGETABLE\(CHANGES [^,]+, (\d+)\) AS t/.exec(statement);
    if (changed) {
      const keys = [...new Set((state.changes ?? []).filter((change) => change.version > BigInt(changed[2] ?? '0')).map((change) => change.key))];
      return keys.slice(0, Number(changed[1])).map((key) => ({ key_hash: createHash('md5').update(key).digest('hex'), key_0: key }));
    }
    if (statement.includes("SERVERPROPERTY('ProductVersion')")) return [{ major_version: state.majorVersion ?? 15, engine_edition: state.engineEdition ?? 3 }];
    if (statement.startsWith('SELECT CONVERT(varchar(20), COALESCE(SUM(p.rows), 0)) AS estimate')) return [{ estimate: String(state.rowsEstimate ?? 0) }];
    return [answerOne(statement)];
  };
  const answerOne = (statement: string): Record<string, unknown> => {
    if (statement.includes('snapshot_isolation_state')) return { state: 1 };
    if (statement.includes('AS incarnation')) return { incarnation: incarnationAnswer(statement, state) };
    if (statement.includes('CHANGE_TRACKING_CURRENT_VERSION()')) return { current_version: state.currentVersion.toString() };
    if (statement.includes('CHANGE_TRACKING_MIN_VALID_VERSION(')) {
      const visible = state.mayViewChangeTracking ? state.tableMinValidVersion : null;
      return { min_valid_version: visible === null ? null : visible.toString() };
    }
    if (statement.includes("HAS_PERMS_BY_NAME(@table, 'OBJECT', 'VIEW CHANGE TRACKING')")) {
      return { may_view_changes: state.mayViewChangeTracking ? 1 : 0, user_name: state.userName };
    }
    throw new Error(`the Change Tracking double does not answer ${statement.slice(0, 80)}`);
  };
  const answered = (statement: string) => new Promise<{ recordset: Record<string, unknown>[] }>((resolve) => resolve({ recordset: answer(statement) }));
  // mssql's pool: "Once you create a new Request/Transaction/Prepared Statement, a new TDS connection is acquired from
  // the pool and reserved for desired action. Once the action is complete, connection is released back to the pool"
  // (node-mssql, lib/base/connection-pool.js). Requests and transactions ask `acquire`/`release` of the pool object (as
  // mssql's do, so a wrapper of those sees them); tarn gives at most `max` connections, and "acquire promises are
  // rejected after [acquireTimeoutMillis] if a resource cannot be acquired" (tarn.js README; mssql sets no other
  // default than tarn's 30000), mssql prefixing the message with "Failed to acquire a connection from the pool: ".
  const limits = { max: 10, acquireTimeoutMillis: 30_000, ...options };
  let inUse = 0;
  let connectionIds = 0;
  const waiting: Array<() => void> = [];
  const lending = {
    acquire: (_requester: unknown): Promise<{ id: number }> =>
      new Promise((resolve, reject) => {
        const give = () => {
          inUse += 1;
          connectionIds += 1;
          resolve({ id: connectionIds });
        };
        if (inUse < limits.max) {
          give();
          return;
        }
        const waiter = () => {
          clearTimeout(timer);
          give();
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(new Error('Failed to acquire a connection from the pool: operation timed out for an unknown reason'));
        }, limits.acquireTimeoutMillis);
        waiting.push(waiter);
      }),
    release: (_connection: unknown): void => {
      inUse -= 1;
      waiting.shift()?.();
    },
  };
  const onConnection = async (requester: unknown, statement: string) => {
    const connection = await pool.acquire(requester);
    try {
      // A statement takes a turn of the event loop, so that concurrent work interleaves as on a server.
      await new Promise((resolve) => setImmediate(resolve));
      return await answered(statement);
    } finally {
      pool.release(connection);
    }
  };
  const request = () => {
    const requester = { input: () => undefined, query: (statement: string) => onConnection(requester, statement), batch: (statement: string) => onConnection(requester, statement) };
    return requester;
  };
  let openTransactions = 0;
  const transaction = () => {
    let active = false;
    let connection: unknown = null;
    const inTransaction = (statement: string) => {
      if (active) return Promise.reject(transactionError("Can't acquire connection for the request. There is another request in progress.", 'EREQINPROG'));
      active = true;
      state.transactionStatements?.push(statement);
      return new Promise<{ recordset: Record<string, unknown>[] }>((resolve, reject) =>
        setImmediate(() => {
          active = false;
          answered(statement).then(resolve, reject);
        }),
      );
    };
    const end = (call: string) => {
      if (connection === null) return Promise.reject(transactionError('Transaction has not begun. Call begin() first.', 'ENOTBEGUN'));
      if (active) return Promise.reject(transactionError(`Can't ${call} transaction. There is a request in progress.`, 'EREQINPROG'));
      pool.release(connection);
      connection = null;
      openTransactions -= 1;
      return Promise.resolve();
    };
    const self = {
      begin: async () => {
        connection = await pool.acquire(self);
        openTransactions += 1;
      },
      rollback: () => end('rollback'),
      commit: () => end('commit'),
      request: () => ({ input: () => undefined, query: inTransaction, batch: inTransaction }),
    };
    return self;
  };
  const pool = { ...lending, request, transaction, close: () => Promise.resolve(), openTransactions: () => openTransactions, connectionsInUse: () => inUse };
  return pool as unknown as ConnectionPool & typeof lending;
}

/** mssql's TransactionError: its name and code. */
function transactionError(message: string, code: string): Error {
  return Object.assign(new Error(message), { name: 'TransactionError', code });
}

/** Transactions of a Change Tracking double begun and not yet ended. */
export function openTransactionsOf(pool: ConnectionPool): number {
  return (pool as unknown as { openTransactions: () => number }).openTransactions();
}

/** What the incarnation statement returns, as the catalog views named in the header answer it. */
function incarnationAnswer(statement: string, state: ChangeTrackingState): string | null {
  const life = state.database ?? FIRST_LIFE;
  const edition = state.engineEdition ?? 3;
  const guardedByEdition = /IF CONVERT\(int, SERVERPROPERTY\('EngineEdition'\)\) = 5\s+SELECT[^\n]*sys\.databases/.test(statement);
  const viewOnlyInExec = !statement.replace(/EXEC \(N'[\s\S]*'\)/, '').includes('sys.database_recovery_status');
  if (edition === 5) {
    if (!guardedByEdition || !viewOnlyInExec) throw Object.assign(new Error("Invalid object name 'sys.database_recovery_status'."), { name: 'RequestError', number: 208 });
    return `database created ${life.createDate}`;
  }
  if (life.recoveryStatusVisible === false) return null;
  return `recovery fork ${life.recoveryForkGuid}, database ${life.groupDatabaseId ?? life.databaseGuid}`;
}
