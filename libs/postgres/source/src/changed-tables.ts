import type { TableRef } from '@svc/contracts';
import { incarnationMoved, type ChangedTables, type ChangeProbeOptions, type TableWatermark } from '@svc/engines';
import type { Pool } from 'pg';
import { CAPTURE_FAILURES, CHANGE_SCHEMA, TRACKED_TABLES, quoteIdent } from './identifiers';
import { TRACKING_OBJECTS_SQL } from './tracking-sql';
import { relayLog, type RelayOptions } from './log/log-relay';
import { PUBLICATION, RELAYED_HORIZON_SQL, SLOT_WAL_HELD_SQL } from './log/log-sql';
import { readIncarnation } from './incarnation';
import { InvalidVersionError, parseVersion, xid8Literal } from './versions';

/** EXISTS probes per statement: a few hundred keeps each statement's plan small. */
const PROBES_PER_STATEMENT = 500;

/**
 * A table's schema stamp: the transaction ids that last wrote its catalog rows (pg_class, its columns in pg_attribute,
 * its indexes and constraints) with their counts. ALTER TABLE writes new versions of those rows, and a dropped index or
 * key removes one, so the stamp changes with every change of columns, types or key.
 */
const SCHEMA_STAMP_SQL = `(select concat_ws(':', c.xmin::text,
      (select concat(count(*), '/', max(a.xmin::text::bigint)) from pg_attribute a where a.attrelid = c.oid),
      (select concat(count(*), '/', max(i.xmin::text::bigint)) from pg_index i where i.indrelid = c.oid),
      (select concat(count(*), '/', max(k.xmin::text::bigint)) from pg_constraint k where k.conrelid = c.oid))
    from pg_class c where c.oid = rel.oid)`;

/**
 * Each table's change table and minimum valid version from the registry of tracked tables, the horizon a change read
 * stops at, whether the table still exists and, when asked, its schema stamp.
 */
function trackedSql(withSchemaStamps: boolean, withFailures: boolean, withLog: boolean): string {
  const failure = withFailures ? `(select max(f.failed_xid)::text from ${CAPTURE_FAILURES} f where f.schema = t.schema and f.name = t.name)` : 'null::text';
  // A log-captured table's records stop at the relay's horizon, and come only while the publication holds the relation.
  const log = withLog
    ? `case when r.capture = 'log' then coalesce((${RELAYED_HORIZON_SQL}), '0') end as relayed,
  case when r.capture = 'log' then rel.oid is not null and rel.oid = r.relid and exists (
    select from pg_publication_rel pr join pg_publication p on p.oid = pr.prpubid where p.pubname = '${PUBLICATION}' and pr.prrelid = rel.oid) end as published`
    : 'null::text as relayed, null::boolean as published';
  return `select t.ordinality::int - 1 as index, r.change_table, r.min_valid_version::text as min_valid, ${failure} as latest_failure,
  ${log},
  case when r.change_table is null then false
    else to_regclass(format('%I.%I', '${CHANGE_SCHEMA}', r.change_table)) is not null end as change_table_exists,
  rel.oid is not null as table_exists,
  pg_snapshot_xmin(pg_current_snapshot())::text as horizon,
  ${withSchemaStamps ? SCHEMA_STAMP_SQL : 'null::text'} as schema_stamp
from unnest($1::text[], $2::text[]) with ordinality as t(schema, name, ordinality)
cross join lateral (select to_regclass(format('%I.%I', t.schema, t.name)) as oid) rel
left join ${TRACKED_TABLES} r on r.schema = t.schema and r.name = t.name
order by t.ordinality`;
}

interface TrackedRow {
  index: number;
  change_table: string | null;
  min_valid: string | null;
  change_table_exists: boolean;
  table_exists: boolean;
  horizon: string;
  /** Null when not asked for. */
  schema_stamp: string | null;
  /** The latest failed capture of the table's writes; null when none. */
  latest_failure: string | null;
  /** Log capture: where the relay of the log stands ('0' before it ran); null for triggers. */
  relayed: string | null;
  /** Log capture: whether the publication holds the table as registered; null for triggers. */
  published: boolean | null;
}

interface Probe {
  index: number;
  changeTable: string;
  from: bigint;
  /** Where a read would stop, when it is not the snapshot's xmin (log capture: the relay's horizon). */
  to?: bigint;
}

/**
 * SourceConnector.changedTables for PostgreSQL: one statement reads the registry of tracked tables for all of them,
 * then one statement per PROBES_PER_STATEMENT tables asks each change table whether a record lies in the window a
 * change read would take now, [watermark, snapshot xmin), using the change table's svc_xid index.
 */
export async function changedTables(pool: Pool, watermarks: readonly TableWatermark[], options: ChangeProbeOptions, relay: RelayOptions = {}): Promise<ChangedTables> {
  if (watermarks.length === 0) return { changed: [], unknown: [], schemaStamps: [] };
  const [objects] = (await pool.query<{ registry: boolean; failures: boolean; log: boolean }>(TRACKING_OBJECTS_SQL)).rows;
  if (objects?.registry !== true) return { changed: [], unknown: watermarks.map((watermark) => watermark.table), schemaStamps: [] };
  // The probe is also what moves an idle database's slot on: its WAL is released at every probe.
  if (objects.log) await relayLog(pool, relay);
  // A table whose watermark was read in another incarnation of the cluster gets its cycle, which reseeds it.
  const incarnation = watermarks.some((watermark) => watermark.incarnation !== undefined) ? await readIncarnation(pool) : null;
  const withFailures = objects.failures;
  const tracked = await pool.query<TrackedRow>(trackedSql(options.schemaStamps, withFailures, objects.log), [watermarks.map((watermark) => watermark.table.schema), watermarks.map((watermark) => watermark.table.name)]);
  const unknown: TableRef[] = [];
  const probes: Probe[] = [];
  const schemaStamps: ChangedTables['schemaStamps'] = [];
  for (const row of tracked.rows) {
    const watermark = watermarks[row.index];
    if (watermark === undefined) continue;
    if (row.schema_stamp !== null) schemaStamps.push({ table: watermark.table, stamp: row.schema_stamp });
    const probe = row.table_exists && !incarnationMoved(watermark.incarnation, incarnation) ? probeOf(row, watermark.version) : null;
    if (probe === null) unknown.push(watermark.table);
    else if (probe.to === undefined || probe.to > probe.from) probes.push(probe);
  }
  const changed: TableRef[] = [];
  for (let start = 0; start < probes.length; start += PROBES_PER_STATEMENT) {
    const statement = probes.slice(start, start + PROBES_PER_STATEMENT);
    const result = await pool.query<{ index: number }>(probeSql(statement));
    for (const row of result.rows) {
      const watermark = watermarks[row.index];
      if (watermark !== undefined) changed.push(watermark.table);
    }
  }
  const walHeldBytes = objects.log ? await slotWalHeld(pool) : null;
  return { changed, unknown, schemaStamps, ...(walHeldBytes !== null && { walHeldBytes }) };
}

/** Bytes of WAL the database's slot keeps (from its restart LSN to now); null without a slot. */
async function slotWalHeld(pool: Pool): Promise<number | null> {
  const row = (await pool.query<{ bytes: string | null }>(SLOT_WAL_HELD_SQL)).rows[0];
  return row?.bytes == null ? null : Number(row.bytes);
}

/** The probe of one table; null when a change read from `version` would fail (not tracked, purged, rewound, malformed). */
function probeOf(row: TrackedRow, version: string): Probe | null {
  if (row.change_table === null || row.min_valid === null || !row.change_table_exists) return null;
  try {
    const from = parseVersion(version, 'watermark');
    if (from < parseVersion(row.min_valid, 'min_valid_version') || from > parseVersion(row.horizon, 'horizon')) return null;
    // A write whose capture failed left no change record: the table gets its cycle, which finds the failure and reseeds.
    if (row.latest_failure !== null && parseVersion(row.latest_failure, 'failed capture') >= from) return null;
    if (row.published === false) return null;
    if (row.relayed !== null) {
      const relayed = parseVersion(row.relayed, 'relayed horizon');
      const horizon = parseVersion(row.horizon, 'horizon');
      return { index: row.index, changeTable: row.change_table, from, to: relayed < horizon ? relayed : horizon };
    }
    return { index: row.index, changeTable: row.change_table, from };
  } catch (error) {
    if (error instanceof InvalidVersionError) return null;
    throw error;
  }
}

function probeSql(probes: readonly Probe[]): string {
  const branches = probes.map(
    (probe) =>
      `select ${probe.index} as index where exists (select 1 from ${CHANGE_SCHEMA}.${quoteIdent(probe.changeTable)} where svc_xid >= ${xid8Literal(probe.from)} and svc_xid < ${probe.to === undefined ? '(select xmin from horizon)' : xid8Literal(probe.to)})`,
  );
  return `with horizon as materialized (select pg_snapshot_xmin(pg_current_snapshot()) as xmin)\n${branches.join('\nunion all\n')}`;
}
