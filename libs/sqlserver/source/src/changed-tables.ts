import { incarnationMoved, type ChangedTables, type ChangeProbeOptions, type TableWatermark } from '@svc/engines';
import type { ConnectionPool } from 'mssql';
import { PROBES_PER_STATEMENT, changeExistsSql, trackedVersionsSql } from './changed-tables-sql';
import { readIncarnation } from './incarnation';
import { InvalidVersionError, lastSyncVersionOf, parseVersion, versionsWentBack } from './versions';

interface TrackedRow {
  index: number;
  min_valid_version: string | number | null;
  current_version: string | number | null;
  schema_stamp: string | null;
}

/** What a change read from `version` would do, judged from the table's minimum valid version and the database's current one. */
export function probeVerdict(version: string, minValid: bigint | null, current: bigint | null): { last: bigint } | 'unknown' {
  if (minValid === null || current === null) return 'unknown';
  try {
    const from = parseVersion(version, 'watermark');
    const last = lastSyncVersionOf(from);
    // A read would fail: versions went back (a restore), or the changes after `last` were cleaned up.
    if (versionsWentBack(from, current) || last < minValid) return 'unknown';
    return { last };
  } catch (error) {
    if (error instanceof InvalidVersionError) return 'unknown';
    throw error;
  }
}

const versionOf = (value: string | number | null | undefined): bigint | null => (value === null || value === undefined ? null : BigInt(value));

/** SourceConnector.changedTables for SQL Server: two statements per PROBES_PER_STATEMENT tables, whatever their number. */
export async function changedTables(pool: ConnectionPool, watermarks: readonly TableWatermark[], options: ChangeProbeOptions): Promise<ChangedTables> {
  const result: ChangedTables = { changed: [], unknown: [], schemaStamps: [] };
  // A table whose watermark was read in another incarnation of the database gets its cycle, which reseeds it.
  const current = watermarks.some((watermark) => watermark.incarnation !== undefined) ? await readIncarnation(pool.request()) : null;
  for (let start = 0; start < watermarks.length; start += PROBES_PER_STATEMENT) {
    const chunk = watermarks.slice(start, start + PROBES_PER_STATEMENT);
    const tracked = (await pool.request().query<TrackedRow>(trackedVersionsSql(chunk.map((watermark) => watermark.table), options.schemaStamps))).recordset;
    const probes: { index: number; table: TableWatermark['table']; last: bigint }[] = [];
    for (const row of tracked) {
      const watermark = chunk[row.index];
      if (watermark === undefined) continue;
      if (row.schema_stamp !== null) result.schemaStamps.push({ table: watermark.table, stamp: row.schema_stamp });
      const verdict = incarnationMoved(watermark.incarnation, current) ? 'unknown' : probeVerdict(watermark.version, versionOf(row.min_valid_version), versionOf(row.current_version));
      if (verdict === 'unknown') result.unknown.push(watermark.table);
      else probes.push({ index: row.index, table: watermark.table, last: verdict.last });
    }
    if (probes.length === 0) continue;
    try {
      const changed = (await pool.request().query<{ index: number }>(changeExistsSql(probes))).recordset;
      for (const row of changed) {
        const watermark = chunk[row.index];
        if (watermark !== undefined) result.changed.push(watermark.table);
      }
    } catch {
      // A table untracked or dropped between the two statements fails the second: none of them can be judged now.
      result.unknown.push(...probes.map((probe) => probe.table));
    }
  }
  return result;
}
