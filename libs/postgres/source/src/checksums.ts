import type { TableDefinition } from '@svc/contracts';
import { changedKeysSql, checksumReader, sourceChecksumColumns, tableKeysOf, withPoolConnections, type ChecksumTable, type SourceChecksums, type TableKey } from '@svc/engines';
import { INTERCHANGE_TEXT_SETTINGS_SQL, POSTGRES_CHECKSUM_DIALECT, openChecksumSession, quoteIdent } from '@svc/postgres/common';
import type { Pool } from 'pg';
import { inChangeSchema, qualifiedName, trackingNames } from './identifiers';
import { SNAPSHOT_VERSION_SQL } from './read-sql';
import { parseVersion, xid8Literal } from './versions';

const ALIAS = 't';
/** Keys marked changed per statement. */
const MARKS_PER_STATEMENT = 500;

/** The table's estimated rows: the planner's statistic, or its size over 100 bytes a row before it was ever analysed. */
const ROWS_ESTIMATE_SQL = `select (case when c.reltuples >= 0 then c.reltuples else pg_relation_size(c.oid) / 100 end)::bigint::text as estimate
from pg_class c where c.oid = $1::regclass`;

/**
 * Validation's source side on PostgreSQL: a REPEATABLE READ snapshot whose version is its xmin (every change
 * below it is in it: the version a change read from there would start at), and the keys of the table's change
 * records from a version on (svc_ct, trigger-captured: a deleted key is there too).
 */
export function postgresChecksums(pool: Pool, definition: TableDefinition): SourceChecksums {
  const { columns, keyColumns } = sourceChecksumColumns(definition, (name) => `${ALIAS}.${quoteIdent(name)}`);
  const table: ChecksumTable = {
    from: `${qualifiedName(definition.table)} AS ${ALIAS}`,
    where: null,
    columns,
    keyColumns,
  };
  const keysChangedSince = async (version: string, limit: number): Promise<TableKey[] | null> => {
    if (keyColumns.length === 0) return [];
    const changeTable = `${inChangeSchema(trackingNames(definition.table).changeTable)} AS ${ALIAS}`;
    const since = `${ALIAS}.svc_xid >= ${xid8Literal(parseVersion(version, 'version'))}`;
    const session = await openChecksumSession(pool, `begin read only;\n${INTERCHANGE_TEXT_SETTINGS_SQL}`);
    try {
      const rows = await session.query(changedKeysSql(POSTGRES_CHECKSUM_DIALECT, changeTable, keyColumns, since, limit + 1), []);
      return rows.length > limit ? null : tableKeysOf(rows, keyColumns.length);
    } finally {
      await session.close();
    }
  };
  return {
    // The snapshot's session and keysChangedSince's (a snapshot cannot see what was committed after it) at once.
    withSnapshot: (work) =>
      withPoolConnections(pool, keyColumns.length === 0 ? 1 : 2, async () => {
        const session = await openChecksumSession(pool);
        try {
          // The snapshot is taken by the transaction's first statement: this one, so its xmin is the snapshot's.
          const [versionRow] = await session.query(SNAPSHOT_VERSION_SQL, []);
          const [estimateRow] = await session.query(ROWS_ESTIMATE_SQL, [qualifiedName(definition.table)]);
          const version = parseVersion(String(versionRow?.['version']), 'snapshot xmin').toString();
          const rowsEstimated = Number(estimateRow?.['estimate'] ?? 0);
          return await work({ ...checksumReader(POSTGRES_CHECKSUM_DIALECT, table, session.query, () => session.close()), version, rowsEstimated, keysChangedSince });
        } finally {
          await session.close();
        }
      }),
    markChanged: async (keys) => {
      const names = keyColumns.map((_, index) => quoteIdent(definition.primaryKey[index] ?? ''));
      const changeTable = inChangeSchema(trackingNames(definition.table).changeTable);
      const session = await openChecksumSession(pool, 'begin');
      try {
        for (let start = 0; start < keys.length; start += MARKS_PER_STATEMENT) {
          const chunk = keys.slice(start, start + MARKS_PER_STATEMENT);
          const rows = chunk.map((_, row) => `(${keyColumns.map((column, index) => `CAST($${row * keyColumns.length + index + 1} AS ${column.declaredType})`).join(', ')}, 'U')`);
          const parameters = chunk.flatMap((key) => keyColumns.map((_, index) => key.key[index] ?? null));
          await session.query(`insert into ${changeTable} (${names.join(', ')}, svc_op) values ${rows.join(', ')}`, parameters);
        }
        // The marks carry this transaction's id: a change read whose snapshot's xmin is above it has read them.
        const [row] = await session.query('select pg_current_xact_id()::text as xid', []);
        await session.query('commit', []);
        return (parseVersion(String(row?.['xid']), 'transaction id') + 1n).toString();
      } finally {
        await session.close();
      }
    },
    compareVersions: (left, right) => {
      const [a, b] = [parseVersion(left, 'version'), parseVersion(right, 'version')];
      return a < b ? -1 : a > b ? 1 : 0;
    },
  };
}
