import type { TableRef } from '@svc/contracts';
import type { ConnectionPool } from 'mssql';
import { changedTables, probeVerdict } from './changed-tables';
import { changeExistsSql, trackedVersionsSql } from './changed-tables-sql';

/*
 * What the probe relies on, from Microsoft's documentation:
 * - CHANGE_TRACKING_MIN_VALID_VERSION(object_id) is NULL when change tracking is not enabled for the table, the object
 *   id is not valid, or the caller lacks permission ("CHANGE_TRACKING_MIN_VALID_VERSION (Transact-SQL)"); a client whose
 *   last synchronised version is below it must reinitialise;
 * - CHANGETABLE(CHANGES table, last_sync_version) returns the changes made after last_sync_version, and fails (error
 *   22105) for a table on which change tracking is not enabled ("CHANGETABLE (Transact-SQL)");
 * - CHANGE_TRACKING_CURRENT_VERSION() is NULL when change tracking is not enabled for the database.
 */
describe('probeVerdict: what a change read from a watermark would do', () => {
  it.each<[string, string, bigint | null, bigint | null, ReturnType<typeof probeVerdict>]>([
    ['a tracked table, watermark valid', '11', 5n, 20n, { last: 10n }],
    ['the watermark just at the minimum valid version + 1', '6', 5n, 20n, { last: 5n }],
    ['changes after the watermark cleaned up (last below MIN_VALID_VERSION)', '5', 5n, 20n, 'unknown'],
    ['a table not tracked, gone or not visible (MIN_VALID_VERSION is NULL)', '11', null, 20n, 'unknown'],
    ['change tracking off for the database (CURRENT_VERSION is NULL)', '11', 5n, null, 'unknown'],
    ['versions went back (a restore): the watermark is past the database', '30', 5n, 20n, 'unknown'],
    ['a malformed watermark', "1; DROP TABLE x", 5n, 20n, 'unknown'],
    ['watermark 0 (no read starts there)', '0', 0n, 20n, 'unknown'],
  ])('%s', (_name, version, minValid, current, verdict) => {
    expect(probeVerdict(version, minValid, current)).toEqual(verdict);
  });
});

/** A pool that answers the probe's two statements as the server would for the given tables. */
function probePool(tables: Record<string, { minValid: bigint | null; changesAfter: bigint | null }>, options: { failSecond?: boolean; incarnation?: string } = {}) {
  const statements: string[] = [];
  const request = () => ({
    query: async (statement: string) => {
      statements.push(statement);
      if (statement.includes('AS incarnation')) return { recordset: [{ incarnation: options.incarnation ?? 'recovery fork F1, database D1' }] };
      if (statement.includes('CHANGE_TRACKING_MIN_VALID_VERSION')) {
        const names = [...statement.matchAll(/\((\d+), N'([^']*)'\)/g)];
        return {
          recordset: names.map(([, index, name]) => ({
            index: Number(index),
            min_valid_version: tables[name ?? '']?.minValid?.toString() ?? null,
            current_version: '100',
            schema_stamp: tables[name ?? ''] === undefined || !statement.includes('sys.objects') ? null : `2026-11-26T10:00:00.000:${name ?? ''}`,
          })),
        };
      }
      if (options.failSecond) throw Object.assign(new Error("Change tracking is not enabled on table 't'."), { number: 22105 });
      const probes = [...statement.matchAll(/SELECT (\d+) AS \[index\] WHERE EXISTS \(SELECT 1 FROM CHANGETABLE\(CHANGES (\[[^\]]+\]\.\[[^\]]+\]), (\d+)\)/g)];
      return {
        recordset: probes
          .filter(([, , name, last]) => {
            const newest = tables[name ?? '']?.changesAfter;
            return newest !== null && newest !== undefined && newest > BigInt(last ?? '0');
          })
          .map(([, index]) => ({ index: Number(index) })),
      };
    },
  });
  return { pool: { request } as unknown as ConnectionPool, statements };
}

const ref = (name: string): TableRef => ({ schema: 'dbo', name });
const WITH_STAMPS = { schemaStamps: true };

describe('changedTables on SQL Server', () => {
  it('judges every table with two statements: their versions, then one EXISTS probe per tracked table', async () => {
    const { pool, statements } = probePool({
      '[dbo].[busy]': { minValid: 1n, changesAfter: 50n },
      '[dbo].[quiet]': { minValid: 1n, changesAfter: 9n },
      '[dbo].[untracked]': { minValid: null, changesAfter: null },
      '[dbo].[purged]': { minValid: 40n, changesAfter: 50n },
    });
    const result = await changedTables(pool, [
      { table: ref('busy'), version: '11' },
      { table: ref('quiet'), version: '11' },
      { table: ref('untracked'), version: '11' },
      { table: ref('purged'), version: '11' },
    ], WITH_STAMPS);
    expect(result).toEqual({
      changed: [ref('busy')],
      unknown: [ref('untracked'), ref('purged')],
      schemaStamps: ['busy', 'quiet', 'untracked', 'purged'].map((table) => ({ table: ref(table), stamp: `2026-11-26T10:00:00.000:[dbo].[${table}]` })),
    });
    expect(statements).toHaveLength(2);
    // The probe statement names only the tables found tracked: CHANGETABLE fails for any other.
    expect(statements[1]).not.toContain('[untracked]');
    expect(statements[1]).not.toContain('[purged]');
  });

  it('keeps to a constant number of statements for many tables (two per 500)', async () => {
    const tables = Object.fromEntries(Array.from({ length: 1200 }, (_, index) => [`[dbo].[t${index}]`, { minValid: 1n, changesAfter: index === 1199 ? 60n : 5n }]));
    const { pool, statements } = probePool(tables);
    const result = await changedTables(pool, Array.from({ length: 1200 }, (_, index) => ({ table: ref(`t${index}`), version: '11' })), WITH_STAMPS);
    expect({ changed: result.changed, unknown: result.unknown }).toEqual({ changed: [ref('t1199')], unknown: [] });
    expect(result.schemaStamps).toHaveLength(1200);
    expect(statements).toHaveLength(6);
  });

  it('cannot judge the tables of a probe statement that failed (a table untracked or dropped in between)', async () => {
    const { pool } = probePool({ '[dbo].[a]': { minValid: 1n, changesAfter: 50n } }, { failSecond: true });
    expect(await changedTables(pool, [{ table: ref('a'), version: '11' }], WITH_STAMPS)).toMatchObject({ changed: [], unknown: [ref('a')] });
  });

  it('reads no catalog for schema stamps unless asked (the registry asks every few seconds)', async () => {
    const { pool, statements } = probePool({ '[dbo].[a]': { minValid: 1n, changesAfter: 50n } });
    expect(await changedTables(pool, [{ table: ref('a'), version: '11' }], { schemaStamps: false })).toEqual({ changed: [ref('a')], unknown: [], schemaStamps: [] });
    expect(statements[0]).not.toContain('sys.objects');
  });

  // Microsoft's "Change tracking and data restore": a database restored past the watermark answers versions a read
  // would accept; an idle table with no change after the watermark would never get the cycle that reseeds it.
  it('cannot judge a table whose watermark was read in another incarnation of the database (a restore): its cycle reseeds it', async () => {
    const tables = { '[dbo].[idle]': { minValid: 1n, changesAfter: 5n }, '[dbo].[old]': { minValid: 1n, changesAfter: 5n } };
    const { pool, statements } = probePool(tables, { incarnation: 'recovery fork F2, database D1' });
    const result = await changedTables(pool, [
      { table: ref('idle'), version: '11', incarnation: 'recovery fork F1, database D1' },
      { table: ref('old'), version: '11' },
    ], { schemaStamps: false });
    expect(result).toEqual({ changed: [], unknown: [ref('idle')], schemaStamps: [] });
    expect(statements).toHaveLength(3);
  });

  it('reads no incarnation when no watermark has one (a registry before incarnations)', async () => {
    const { pool, statements } = probePool({ '[dbo].[a]': { minValid: 1n, changesAfter: 5n } });
    await changedTables(pool, [{ table: ref('a'), version: '11' }], { schemaStamps: false });
    expect(statements.some((statement) => statement.includes('AS incarnation'))).toBe(false);
  });

  it('reads as T-SQL a reviewer can check (names quoted, versions as plain integers)', () => {
    expect(trackedVersionsSql([ref('o]rders'), { schema: "s'x", name: 't' }], true)).toMatchSnapshot();
    expect(changeExistsSql([{ index: 0, table: ref('o]rders'), last: 10n }, { index: 3, table: ref('t'), last: 42n }])).toMatchSnapshot();
  });
});
