import type { TableDefinition } from '@svc/contracts';
import {
  ChecksumsUnsupportedError,
  changedKeysSql,
  checksumReader,
  sourceChecksumColumns,
  tableKeysOf,
  type ChecksumQuery,
  type ChecksumTable,
  type SourceChecksums,
  type TableKey,
} from '@svc/engines';
import { SERVER_MAJOR_VERSION_SQL, TSQL_CHECKSUM_DIALECT, mssqlDriver, utf8HashingProblem } from '@svc/sqlserver/common';
import type { Request, Transaction } from 'mssql';
import { qualifiedName, quoteName } from './identifiers';
import { unpairedSurrogateInKeys } from './unpaired-surrogates';
import { lastSyncVersionOf, parseVersion, startVersionOf } from './versions';

const ALIAS = 't';

/** The table's rows as sys.partitions counts them (heap or clustered index): a catalog estimate, never a scan. */
export const ROWS_ESTIMATE_SQL = `SELECT CONVERT(varchar(20), COALESCE(SUM(p.rows), 0)) AS estimate
FROM sys.partitions AS p
WHERE p.object_id = OBJECT_ID(@table) AND p.index_id IN (0, 1)`;

/** What the source lends validation: plain requests, and the SNAPSHOT transaction its reads are pinned in. */
export interface ChecksumAccess {
  request(): Promise<Request>;
  /** A SNAPSHOT transaction whose first statement read CHANGE_TRACKING_CURRENT_VERSION() (NULL: no change yet). */
  pinnedSnapshot(): Promise<{ transaction: Transaction; currentVersion: bigint | null }>;
  /** Runs `work` with `count` of the pool's connections taken at once (its requests and transactions draw from them). */
  withConnections<T>(count: number, work: () => Promise<T>): Promise<T>;
}

/**
 * Runs a checksum statement on `request()`, its key texts bound as @p1, @p2… (nvarchar). The key texts it answers are
 * refused when one holds an unpaired surrogate (unpaired-surrogates.ts).
 */
function queryOn(definition: TableDefinition, request: () => Request): ChecksumQuery {
  return async (sql, parameters) => {
    const bound = request();
    parameters.forEach((value, index) => bound.input(`p${index + 1}`, mssqlDriver().NVarChar(mssqlDriver().MAX), value));
    const rows = (await bound.query<Record<string, unknown>>(sql)).recordset;
    const refused = unpairedSurrogateInKeys(definition.table, definition.primaryKey, rows);
    if (refused !== null) throw refused;
    return rows;
  };
}

/**
 * Validation's source side on SQL Server: the checksum statements run in one SNAPSHOT transaction pinned as a seed's
 * read is (its first statement reads CHANGE_TRACKING_CURRENT_VERSION(), so its version is the version a seed read there
 * would start tracking at), and the changed keys come from CHANGETABLE, whose key columns name a deleted key too.
 * There is no markChanged: Change Tracking records a change only when the row is written, and validation never writes
 * a user's table (an UPDATE setting a key to itself would fire its triggers, bump its rowversion and write temporal
 * history), so a repair reseeds the table.
 */
export function sqlServerChecksums(access: ChecksumAccess, definition: TableDefinition): SourceChecksums {
  const { columns, keyColumns } = sourceChecksumColumns(definition, (name) => `${ALIAS}.${quoteName(name)}`);
  const table: ChecksumTable = {
    from: `${qualifiedName(definition.table)} AS ${ALIAS}`,
    where: null,
    columns,
    keyColumns,
  };
  let hashing: Promise<void> | undefined;
  const assertUtf8Hashing = () => {
    hashing ??= (async () => {
      const [row] = (await (await access.request()).query<{ major_version: number; engine_edition: number }>(SERVER_MAJOR_VERSION_SQL)).recordset;
      const problem = utf8HashingProblem(Number(row?.major_version ?? 0), Number(row?.engine_edition ?? 0));
      if (problem !== null) throw new ChecksumsUnsupportedError(problem);
    })().catch((error: unknown) => {
      // A server that could not be asked is asked again by the next snapshot; one that answered keeps its answer.
      if (!(error instanceof ChecksumsUnsupportedError)) hashing = undefined;
      throw error;
    });
    return hashing;
  };
  const keysChangedSince = async (version: string, limit: number): Promise<TableKey[] | null> => {
    if (keyColumns.length === 0) return [];
    const from = parseVersion(version, 'version');
    const changes = `CHANGETABLE(CHANGES ${qualifiedName(definition.table)}, ${lastSyncVersionOf(from).toString()}) AS ${ALIAS}`;
    const sql = changedKeysSql(TSQL_CHECKSUM_DIALECT, changes, keyColumns, `${ALIAS}.SYS_CHANGE_VERSION >= ${from.toString()}`, limit + 1);
    const request = await access.request();
    const rows = await queryOn(definition, () => request)(sql, []);
    return rows.length > limit ? null : tableKeysOf(rows, keyColumns.length);
  };
  return {
    // The SNAPSHOT transaction's connection and keysChangedSince's (the snapshot cannot see later changes) at once.
    withSnapshot: (work) =>
      access.withConnections(keyColumns.length === 0 ? 1 : 2, async () => {
        await assertUtf8Hashing();
        const estimate = await access.request();
        estimate.input('table', mssqlDriver().NVarChar, qualifiedName(definition.table));
        const rowsEstimated = Number((await estimate.query<{ estimate: string }>(ROWS_ESTIMATE_SQL)).recordset[0]?.estimate ?? 0);
        const { transaction, currentVersion } = await access.pinnedSnapshot();
        let closed = false;
        const close = async () => {
          if (closed) return;
          closed = true;
          await transaction.rollback();
        };
        try {
          const version = startVersionOf(currentVersion).toString();
          return await work({ ...checksumReader(TSQL_CHECKSUM_DIALECT, table, queryOn(definition, () => transaction.request()), close), version, rowsEstimated, keysChangedSince });
        } finally {
          await close();
        }
      }),
    compareVersions: (left, right) => {
      const [a, b] = [parseVersion(left, 'version'), parseVersion(right, 'version')];
      return a < b ? -1 : a > b ? 1 : 0;
    },
  };
}
