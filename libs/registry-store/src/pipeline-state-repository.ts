import type { Pool } from 'pg';
import { INITIAL_TABLE_PHASE, type ReplicationStatus, type TableEvent, type TablePhase } from '@svc/contracts';
import { storedErrorDetail } from './error-detail';
import type { PublicConfig } from './secret-fields';
import { phaseAfter, phaseAllows } from './table-phase-sql';

/** What the scheduler needs of a replication: its settings without secrets. */
export interface SchedulableReplication {
  replicationId: string;
  status: ReplicationStatus;
  configVersion: number;
  discoveredConfigVersion: number | null;
  config: PublicConfig;
  /** The access key that created it (null before owners were recorded; absent in plans that do not need it). */
  ownerAccessKeyId?: string | null;
}

export type WorkKind = 'seed' | 'changes';

/** How a failure of work in flight moves its table (see TABLE_PHASE_TABLE). */
export type WorkFailureEvent = Extract<TableEvent, 'failed-retryable' | 'failed-terminal' | 'failed-replication-wide' | 'failed-reseed'>;

export interface TableRuntimeState {
  replicationId: string;
  tableName: string;
  phase: TablePhase;
  tracked: boolean;
  lastVersion: string | null;
  /** The source incarnation `lastVersion` was read in (SourceIncarnation); null when unknown or stored before incarnations. */
  lastIncarnation: string | null;
  inFlightWorkId: string | null;
  inFlightKind: WorkKind | null;
  inFlightSince: Date | null;
  /** When JetStream confirmed the work message of the claim; null with work in flight: maybe never sent. */
  inFlightPublishedAt: Date | null;
  /** The group the work in flight travels in (several small tables' change cycles as one unit); null when it goes alone. */
  inFlightGroupId: string | null;
  /** Last sign of life of the work in flight (queued, a worker's heartbeat, a seed part loaded). */
  lastProgressAt: Date | null;
  lastSeededAt: Date | null;
  lastCycleAt: Date | null;
  lastCycleRows: number;
  lastError: string | null;
  /** What a server said of the last error (redacted, bounded); only for keys allowed to see it. */
  lastErrorDetail: string | null;
  /** Fencing token of the latest unit of work claimed (see migration 3). */
  workEpoch: number;
  /** CtProcessTimeoutInMinutes doubling level: 0 configured, 1 double, 2 four times, 3 no limit. */
  ctTimeoutLevel: number;
  failureCount: number;
  retryAt: Date | null;
  watermarkAt: Date | null;
  retentionAlertedAt: Date | null;
  /** Last change of the row: a loaded seed part counts as progress. */
  updatedAt: Date;
  /** The table's chunked seed, while one is kept (seed_plans): how far it is, and where its close reads from. */
  seedPlan?: SeedPlanSummary | null;
}

/** A kept chunked seed plan as the scheduler and Describe see it. */
export interface SeedPlanSummary {
  seedId: string;
  startVersion: string;
  sourceIncarnation: string | null;
  chunkCount: number;
  chunksLoaded: number;
}

/** Work taken away from a table: its workers are told to drop it. */
export interface ReleasedWork {
  replicationId: string;
  tableName: string;
  workId: string;
}

/**
 * The work a report is about: its id, and the epoch of the attempt that reported (absent from a worker before
 * attempts had epochs). A report of an attempt a later one replaced (WorkAttemptRequest) moves nothing.
 */
export type ReportingWork = string | { workId: string; epoch?: number };

const workIdOf = (work: ReportingWork): string => (typeof work === 'string' ? work : work.workId);
const epochOf = (work: ReportingWork): number | null => (typeof work === 'string' ? null : (work.epoch ?? null));

/** What a finished change cycle moved, for the per-cycle log line. */
export interface CompletedCycle {
  fromVersion: string | null;
  startedAt: Date | null;
}

export interface DiscoveredTable {
  tableName: string;
  tracked: boolean;
  rowsEstimated: number;
}

interface RuntimeRow {
  replication_id: string;
  table_name: string;
  phase: TablePhase;
  tracked: boolean;
  last_version: string | null;
  last_incarnation: string | null;
  in_flight_work_id: string | null;
  in_flight_group: string | null;
  in_flight_kind: WorkKind | null;
  in_flight_since: Date | null;
  in_flight_published_at: Date | null;
  last_progress_at: Date | null;
  last_seeded_at: Date | null;
  last_cycle_at: Date | null;
  last_cycle_rows: string;
  last_error: string | null;
  last_error_detail: string | null;
  work_epoch: string;
  ct_timeout_level: number;
  failure_count: number;
  retry_at: Date | null;
  watermark_at: Date | null;
  retention_alerted_at: Date | null;
  updated_at: Date;
  plan_seed_id?: string | null;
  plan_start_version?: string | null;
  plan_source_incarnation?: string | null;
  plan_chunk_count?: number | null;
  plan_chunks_loaded?: string | null;
}

const RUNTIME_COLUMNS = `replication_id, table_name, phase, tracked, last_version, last_incarnation, in_flight_work_id, in_flight_kind, in_flight_since,
  in_flight_published_at, in_flight_group, last_progress_at, last_seeded_at, last_cycle_at, last_cycle_rows, last_error, last_error_detail, work_epoch, ct_timeout_level, failure_count, retry_at,
  watermark_at, retention_alerted_at, updated_at`;

/** A claim whose work message JetStream has not confirmed: the message is stored with it (an outbox). */
export interface UnpublishedWork {
  replicationId: string;
  tableName: string;
  workId: string;
  /** The work message as claimed, epoch included. */
  request: Record<string, unknown>;
}

/** A WITH item dropping the seed plan of the tables in `updated` (a CTE of the statement returning table_name): their seeds are done or given up. */
const DROP_SEED_PLAN = 'dropped AS (DELETE FROM seed_plans WHERE replication_id = $1 AND table_name IN (SELECT table_name FROM updated))';

/** Clears the unit of work in flight (SET fragment). */
export const RELEASE = 'in_flight_work_id = NULL, in_flight_kind = NULL, in_flight_since = NULL, in_flight_request = NULL, in_flight_published_at = NULL';

/**
 * What a loaded change batch records and resets (SET fragment), whether its work ends with it or goes on: its rows,
 * lag and time, the error detail, the timeout level and the failure backoff. Arguments name the query's parameters.
 */
function changesLoadedSet(rows: string, lagSeconds: string, at: string): string {
  return `last_cycle_rows = ${rows}, lag_seconds = ${lagSeconds}, last_cycle_at = ${at}, last_error_detail = NULL,
              ct_timeout_level = 0, failure_count = 0, retry_at = NULL,
              watermark_at = ${at}, retention_alerted_at = NULL, updated_at = ${at}, last_progress_at = ${at}`;
}

/**
 * The pipeline's view of table state. Every transition is one conditional UPDATE keyed by the work id
 * in flight, so a late or duplicated completion can never move a table that has moved on. The phase it
 * writes, and the phases it refuses, come from the table phase machine (TABLE_PHASE_TABLE, @svc/contracts).
 */
export class PipelineStateRepository {
  constructor(private readonly pool: Pool) {}

  async listReplications(): Promise<SchedulableReplication[]> {
    const result = await this.pool.query<{ id: string; status: ReplicationStatus; config: SchedulableReplication['config']; config_version: number; discovered_config_version: number | null; owner_access_key_id: string | null }>(
      'SELECT id, status, config, config_version, discovered_config_version, owner_access_key_id FROM replications ORDER BY created_at',
    );
    return result.rows.map((row) => ({
      replicationId: row.id,
      status: row.status,
      configVersion: row.config_version,
      discoveredConfigVersion: row.discovered_config_version,
      config: row.config,
      ownerAccessKeyId: row.owner_access_key_id,
    }));
  }

  /** The tables of the replications; those leaving their replication (detachTables) only with `includeLeaving`. */
  async listTables(replicationIds: string[], { includeLeaving = false }: { includeLeaving?: boolean } = {}): Promise<TableRuntimeState[]> {
    if (replicationIds.length === 0) return [];
    const result = await this.pool.query<RuntimeRow>(
      `SELECT ${RUNTIME_COLUMNS}, p.seed_id AS plan_seed_id, p.start_version AS plan_start_version, p.source_incarnation AS plan_source_incarnation,
              p.chunk_count AS plan_chunk_count,
              (SELECT count(*) FROM seed_chunks AS c WHERE c.replication_id = p.replication_id AND c.table_name = p.table_name AND c.seed_id = p.seed_id) AS plan_chunks_loaded
         FROM table_states LEFT JOIN seed_plans AS p USING (replication_id, table_name)
        WHERE replication_id = ANY($1::uuid[]) AND ($2 OR NOT leaving) ORDER BY replication_id, table_name`,
      [replicationIds, includeLeaving],
    );
    return result.rows.map(toRuntimeState);
  }

  /**
   * Adds tables not known yet (Pending) and records which configuration version was discovered. A known
   * table now to be tracked moves as the phase machine says (`tracking-granted`: Untracked is seeded again).
   */
  async registerTables(replicationId: string, configVersion: number, tables: DiscoveredTable[]): Promise<void> {
    await this.pool.query(
      `WITH discovered AS (
         SELECT * FROM unnest($2::text[], $3::boolean[], $4::bigint[]) AS t(table_name, tracked, rows_estimated)
       ), inserted AS (
         INSERT INTO table_states (replication_id, table_name, phase, tracked, rows_estimated)
         SELECT $1, table_name, $6, tracked, rows_estimated FROM discovered
         ON CONFLICT (replication_id, table_name) DO UPDATE
           SET tracked = EXCLUDED.tracked, rows_estimated = EXCLUDED.rows_estimated, updated_at = now(), leaving = false,
               phase = CASE WHEN EXCLUDED.tracked AND NOT table_states.tracked AND ${phaseAllows('tracking-granted', 'table_states.')} THEN ${phaseAfter('tracking-granted', 'table_states.')} ELSE table_states.phase END
       )
       UPDATE replications SET discovered_config_version = $5 WHERE id = $1`,
      [replicationId, tables.map((t) => t.tableName), tables.map((t) => t.tracked), tables.map((t) => t.rowsEstimated), configVersion, INITIAL_TABLE_PHASE],
    );
  }

  /**
   * Puts work in flight for a table that has none; returns the work's epoch, or null when another claim won.
   * `request` is the work message without its epoch: it is stored with the claim (epoch added) until
   * markPublished, so that a scheduler dying between claim and publish leaves work that can be sent again.
   * Without it the claim counts as published at once. A claim the phase machine refuses (a table in Error,
   * a change cycle of a table not Tracking) claims nothing either.
   */
  /**
   * Claims a table for one unit of work. With `configVersion`, only while the replication's configuration is still
   * that version: an order planned before an Alter (a reseed that turns SchemaReplication on, changes ScdType or the
   * warehouse) must not run under the configuration it replaced; the next pass plans it again under the new one.
   */
  async claim(
    replicationId: string,
    tableName: string,
    workId: string,
    kind: WorkKind,
    now: Date,
    request?: Record<string, unknown>,
    configVersion?: number,
    groupId?: string,
  ): Promise<number | null> {
    const event = kind === 'seed' ? 'seed-claimed' : 'changes-claimed';
    const result = await this.pool.query<{ work_epoch: string }>(
      `UPDATE table_states
          SET in_flight_work_id = $3, in_flight_kind = $4, in_flight_since = $5, updated_at = $5, in_flight_group = $8,
              in_flight_request = $6::jsonb || jsonb_build_object('epoch', work_epoch + 1),
              in_flight_published_at = CASE WHEN $6::jsonb IS NULL THEN $5::timestamptz END,
              last_progress_at = $5,
              work_epoch = work_epoch + 1,
              phase = ${phaseAfter(event)},
              -- A chunked seed resumed (or closed) keeps the rows of its chunks loaded.
              rows_seeded = CASE WHEN $4 = 'seed' THEN (
                SELECT COALESCE(sum(c.row_count), 0) FROM seed_chunks AS c JOIN seed_plans AS p USING (replication_id, table_name, seed_id)
                 WHERE c.replication_id = $1 AND c.table_name = $2) ELSE rows_seeded END
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id IS NULL AND NOT leaving AND ${phaseAllows(event)}
          AND ($7::integer IS NULL OR EXISTS (SELECT 1 FROM replications WHERE id = $1 AND config_version = $7))
        RETURNING work_epoch`,
      [replicationId, tableName, workId, kind, now, request === undefined ? null : JSON.stringify(request), configVersion ?? null, groupId ?? null],
    );
    const row = result.rows[0];
    return row === undefined ? null : Number(row.work_epoch);
  }

  /**
   * Claims the change cycles of a group of one replication's tables in one statement, as `claim` claims each (its own
   * work id, stored message and epoch; the group recorded); the epochs of the tables claimed, by table name. A table
   * another scheduler claimed meanwhile, or one that may no longer get work, is left out.
   */
  async claimChanges(
    replicationId: string,
    members: readonly { tableName: string; workId: string; request: Record<string, unknown> }[],
    now: Date,
    configVersion: number,
    groupId: string,
  ): Promise<Map<string, number>> {
    if (members.length === 0) return new Map();
    const event = 'changes-claimed';
    const result = await this.pool.query<{ table_name: string; work_epoch: string }>(
      `UPDATE table_states AS s
          SET in_flight_work_id = c.work_id, in_flight_kind = 'changes', in_flight_since = $2, updated_at = $2, in_flight_group = $4,
              in_flight_request = c.request || jsonb_build_object('epoch', s.work_epoch + 1),
              in_flight_published_at = NULL,
              last_progress_at = $2,
              work_epoch = s.work_epoch + 1,
              phase = ${phaseAfter(event, 's.')}
         FROM unnest($5::text[], $6::uuid[], $7::jsonb[]) AS c(table_name, work_id, request)
        WHERE s.replication_id = $1 AND s.table_name = c.table_name AND s.in_flight_work_id IS NULL AND NOT s.leaving AND ${phaseAllows(event, 's.')}
          AND EXISTS (SELECT 1 FROM replications WHERE id = $1 AND config_version = $3)
        RETURNING s.table_name, s.work_epoch`,
      [
        replicationId,
        now,
        configVersion,
        groupId,
        members.map((member) => member.tableName),
        members.map((member) => member.workId),
        members.map((member) => JSON.stringify(member.request)),
      ],
    );
    return new Map(result.rows.map((row) => [row.table_name, Number(row.work_epoch)]));
  }

  /** JetStream confirmed the message of these claims (a group's, or one's), in one statement; how many were still in flight. */
  async markPublishedMany(claims: readonly { replicationId: string; tableName: string; workId: string }[], now: Date): Promise<number> {
    if (claims.length === 0) return 0;
    const result = await this.pool.query(
      `UPDATE table_states AS s SET in_flight_published_at = $4
         FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS c(replication_id, table_name, work_id)
        WHERE s.replication_id = c.replication_id AND s.table_name = c.table_name AND s.in_flight_work_id = c.work_id
          AND s.in_flight_published_at IS NULL`,
      [claims.map((claim) => claim.replicationId), claims.map((claim) => claim.tableName), claims.map((claim) => claim.workId), now],
    );
    return result.rowCount ?? 0;
  }

  /** JetStream confirmed the claim's work message; false when the work is no longer in flight. */
  async markPublished(replicationId: string, tableName: string, workId: string, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states SET in_flight_published_at = $4
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND in_flight_published_at IS NULL`,
      [replicationId, tableName, workId, now],
    );
    return result.rowCount === 1;
  }

  /** Claims whose work message was never confirmed (a scheduler died between claim and publish), oldest first. */
  async unpublishedWork(): Promise<UnpublishedWork[]> {
    const result = await this.pool.query<{ replication_id: string; table_name: string; in_flight_work_id: string; in_flight_request: Record<string, unknown> }>(
      `SELECT replication_id, table_name, in_flight_work_id, in_flight_request FROM table_states
        WHERE in_flight_work_id IS NOT NULL AND in_flight_published_at IS NULL AND in_flight_request IS NOT NULL
        ORDER BY in_flight_since`,
    );
    return result.rows.map((row) => ({ replicationId: row.replication_id, tableName: row.table_name, workId: row.in_flight_work_id, request: row.in_flight_request }));
  }

  /** A worker handling the work in flight is alive (a heartbeat); false when that work is no longer in flight. */
  async recordProgress(replicationId: string, tableName: string, work: ReportingWork, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states SET last_progress_at = GREATEST(last_progress_at, $4)
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND ($5::bigint IS NULL OR work_epoch = $5)`,
      [replicationId, tableName, workIdOf(work), now, epochOf(work)],
    );
    return result.rowCount === 1;
  }

  /** A seed part is loaded; progress keeps a long seed from being taken for stale. */
  async recordSeedProgress(replicationId: string, tableName: string, work: ReportingWork, rows: number, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states SET rows_seeded = rows_seeded + $4, updated_at = $5, last_progress_at = $5
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND ($6::bigint IS NULL OR work_epoch = $6) AND ${phaseAllows('seed-part-loaded')}`,
      [replicationId, tableName, workIdOf(work), rows, now, epochOf(work)],
    );
    return result.rowCount === 1;
  }

  /** The seed is loaded (its final part, or a chunked seed's close): tracked tables track from `startVersion`, read in `incarnation`; its plan goes. */
  async completeSeed(
    replicationId: string,
    tableName: string,
    work: ReportingWork,
    startVersion: string,
    rows: number,
    now: Date,
    incarnation: string | null = null,
  ): Promise<boolean> {
    const result = await this.pool.query<{ moved: number }>(
      `WITH updated AS (
       UPDATE table_states
          SET phase = ${phaseAfter('seed-loaded')},
              last_version = CASE WHEN tracked THEN $4 ELSE last_version END,
              last_incarnation = CASE WHEN tracked THEN $7 ELSE last_incarnation END,
              rows_seeded = rows_seeded + $5,
              rows_estimated = GREATEST(rows_estimated, rows_seeded + $5),
              ${RELEASE}, ct_timeout_level = 0, failure_count = 0, retry_at = NULL,
              watermark_at = $6, retention_alerted_at = NULL,
              last_seeded_at = $6, last_cycle_at = $6, last_error = NULL, last_error_detail = NULL, lag_seconds = 0, updated_at = $6, last_progress_at = $6
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND ($8::bigint IS NULL OR work_epoch = $8) AND ${phaseAllows('seed-loaded')}
       RETURNING table_name
       ), ${DROP_SEED_PLAN}
       SELECT count(*)::integer AS moved FROM updated`,
      [replicationId, tableName, workIdOf(work), startVersion, rows, now, incarnation, epochOf(work)],
    );
    return result.rows[0]?.moved === 1;
  }

  /**
   * A change batch is in the warehouse: the watermark advances to its upper version, the timeout and the
   * failure backoff return to their start; with `reseedReason` the table is reseeded next (in the same
   * statement, so no change cycle slips in between) and its watermark is forgotten, so that a reseed that
   * fails for good resumes as Pending, not as Tracking without the reseed. The watermark's incarnation is the batch's,
   * or stays as it was when the batch's source could not say. Null when the work was no longer in flight.
   */
  async completeChanges(
    replicationId: string,
    tableName: string,
    work: ReportingWork,
    version: string,
    rows: number,
    lagSeconds: number,
    now: Date,
    reseedReason: string | null = null,
    incarnation: string | null = null,
  ): Promise<CompletedCycle | null> {
    const event = reseedReason === null ? 'changes-loaded' : 'changes-loaded-reseed';
    const result = await this.pool.query<{ from_version: string | null; started_at: Date | null }>(
      `WITH before AS (
         SELECT last_version, in_flight_since FROM table_states
          WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND ($10::bigint IS NULL OR work_epoch = $10) FOR UPDATE
       )
       UPDATE table_states
          SET last_version = CASE WHEN $8::text IS NULL THEN $4 END, last_error = $8, ${changesLoadedSet('$5', '$6', '$7')},
              last_incarnation = CASE WHEN $8::text IS NULL THEN COALESCE($9, last_incarnation) END,
              phase = ${phaseAfter(event)}, ${RELEASE}
         FROM before
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND ${phaseAllows(event)}
        RETURNING before.last_version AS from_version, before.in_flight_since AS started_at`,
      [replicationId, tableName, workIdOf(work), version, rows, lagSeconds, now, reseedReason, incarnation, epochOf(work)],
    );
    const row = result.rows[0];
    return row === undefined ? null : { fromVersion: row.from_version, startedAt: row.started_at };
  }

  /**
   * A change batch that more batches of its work follow is in the warehouse: a cycle completed as far as the
   * table's state shows (watermark, rows, lag, timeout and backoff back at their start), but the work stays in
   * flight and its next batch's cycle starts now. The watermark moves only from the batch's own `fromVersion`,
   * so a batch whose predecessor's completion has not been recorded yet, or a redelivered older one, moves
   * nothing (the work's last batch settles it). Null when nothing moved.
   */
  async recordChangesProgress(
    replicationId: string,
    tableName: string,
    work: ReportingWork,
    batch: { fromVersion: string; toVersion: string; incarnation?: string | null },
    rows: number,
    lagSeconds: number,
    now: Date,
  ): Promise<CompletedCycle | null> {
    const result = await this.pool.query<{ started_at: Date | null }>(
      `WITH before AS (
         SELECT in_flight_since FROM table_states
          WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND ($10::bigint IS NULL OR work_epoch = $10) FOR UPDATE
       )
       UPDATE table_states
          SET last_version = $5, last_incarnation = COALESCE($9, last_incarnation), last_error = NULL, ${changesLoadedSet('$6', '$7', '$8')}, in_flight_since = $8
         FROM before
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND last_version = $4 AND ${phaseAllows('changes-loaded')}
        RETURNING before.in_flight_since AS started_at`,
      [replicationId, tableName, workIdOf(work), batch.fromVersion, batch.toVersion, rows, lagSeconds, now, batch.incarnation ?? null, epochOf(work)],
    );
    const row = result.rows[0];
    return row === undefined ? null : { fromVersion: batch.fromVersion, startedAt: row.started_at };
  }

  /**
   * Work failed: the table is released. A retryable failure counts towards the backoff and the table
   * waits until `retryAt`; `event` says where the table goes (TABLE_PHASE_TABLE). A failure asking a
   * reseed forgets the watermark, like reseedAll: should the reseed fail for good, the table resumes as Pending.
   */
  async failWork(
    replicationId: string,
    tableName: string,
    work: ReportingWork,
    failure: { message: string; detail?: string; event: WorkFailureEvent; retryAt: Date | null },
    now: Date,
  ): Promise<boolean> {
    const forgetsWatermark = failure.event === 'failed-reseed';
    const result = await this.pool.query<{ moved: number }>(
      `WITH updated AS (
       UPDATE table_states
          SET last_error = $4, last_error_detail = $8, phase = ${phaseAfter(failure.event)}, last_cycle_at = $7, ${RELEASE},
              last_version = CASE WHEN $5 THEN NULL ELSE last_version END,
              last_incarnation = CASE WHEN $5 THEN NULL ELSE last_incarnation END,
              failure_count = CASE WHEN $6::timestamptz IS NULL THEN failure_count ELSE failure_count + 1 END,
              retry_at = $6, updated_at = $7
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND ($9::bigint IS NULL OR work_epoch = $9) AND ${phaseAllows(failure.event)}
       RETURNING table_name
       ), dropped AS (
         -- A reseed asked for plans anew: the chunks loaded were read for a seed that is given up.
         DELETE FROM seed_plans WHERE $5 AND replication_id = $1 AND table_name IN (SELECT table_name FROM updated)
       )
       SELECT count(*)::integer AS moved FROM updated`,
      [replicationId, tableName, workIdOf(work), failure.message, forgetsWatermark, failure.retryAt, now, storedErrorDetail(failure.detail), epochOf(work)],
    );
    return result.rows[0]?.moved === 1;
  }

  /**
   * A new attempt of the work in flight (its request delivered again): the table's epoch moves up and is the attempt's,
   * so staging and warehouse refuse the batches of every earlier attempt once one of this one's is applied, and only
   * this attempt's reports move the table. Null when the work is no longer in flight.
   */
  async newAttempt(replicationId: string, tableName: string, workId: string, now: Date): Promise<number | null> {
    const result = await this.pool.query<{ work_epoch: string }>(
      `UPDATE table_states SET work_epoch = work_epoch + 1, last_progress_at = $4, updated_at = $4
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3
        RETURNING work_epoch`,
      [replicationId, tableName, workId, now],
    );
    const epoch = result.rows[0]?.work_epoch;
    return epoch === undefined ? null : Number(epoch);
  }

  /**
   * Moves the table's epoch past every fence staging and the warehouse may hold: a control database restored from an
   * older backup hands out epochs those databases have passed, and all its batches would be refused. The clock in
   * milliseconds is above any epoch a counter reaches, and above any such move made before.
   */
  async moveEpochPastFences(replicationId: string, tableName: string, now: Date): Promise<void> {
    await this.pool.query('UPDATE table_states SET work_epoch = GREATEST(work_epoch + 1, $3::bigint) WHERE replication_id = $1 AND table_name = $2', [
      replicationId,
      tableName,
      now.getTime(),
    ]);
  }

  /** The work message of the work in flight as it was claimed (epoch of the claim included); null when that work is no longer in flight. */
  async inFlightRequest(replicationId: string, tableName: string, workId: string): Promise<Record<string, unknown> | null> {
    const result = await this.pool.query<{ in_flight_request: Record<string, unknown> | null }>(
      'SELECT in_flight_request FROM table_states WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3',
      [replicationId, tableName, workId],
    );
    return result.rows[0]?.in_flight_request ?? null;
  }

  /** When the work in flight was claimed; null when that work is no longer in flight. */
  async workStartedAt(replicationId: string, tableName: string, workId: string): Promise<Date | null> {
    const result = await this.pool.query<{ in_flight_since: Date | null }>(
      'SELECT in_flight_since FROM table_states WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3',
      [replicationId, tableName, workId],
    );
    return result.rows[0]?.in_flight_since ?? null;
  }

  /** Failures in a row of the table's work (for the backoff of the next one). */
  async failureCount(replicationId: string, tableName: string): Promise<number> {
    const result = await this.pool.query<{ failure_count: number }>(
      'SELECT failure_count FROM table_states WHERE replication_id = $1 AND table_name = $2',
      [replicationId, tableName],
    );
    return result.rows[0]?.failure_count ?? 0;
  }

  /** A change cycle ran past its timeout: released, and the next cycle of the table gets the next timeout level. */
  async cancelWork(replicationId: string, tableName: string, workId: string, reason: string, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states
          SET ${RELEASE}, ct_timeout_level = LEAST(ct_timeout_level + 1, 3), last_error = $4, last_error_detail = NULL, last_cycle_at = $5, updated_at = $5
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3`,
      [replicationId, tableName, workId, reason, now],
    );
    return result.rowCount === 1;
  }

  /** Every table of the replication (or only `tableName`) starts over from a new seed (ScdType or warehouse target changed, a repair too large). */
  async reseedAll(replicationId: string, reason: string, now: Date, tableName: string | null = null): Promise<ReleasedWork[]> {
    const result = await this.pool.query<{ table_name: string; work_id: string | null }>(
      `WITH before AS (
         SELECT table_name, in_flight_work_id FROM table_states WHERE replication_id = $1 AND ($4::text IS NULL OR table_name = $4) FOR UPDATE
       )
       , updated AS (
       UPDATE table_states t
          SET phase = ${phaseAfter('reseed-asked', 't.')}, ${RELEASE},
              -- Forgetting the old watermark and seed time makes a table that fails now resume as Pending: the reseed is not lost.
              last_version = NULL, last_incarnation = NULL, last_seeded_at = NULL,
              ct_timeout_level = 0, failure_count = 0, retry_at = NULL, last_error = $2, last_error_detail = NULL, updated_at = $3
         FROM before
        WHERE t.replication_id = $1 AND t.table_name = before.table_name AND ${phaseAllows('reseed-asked', 't.')}
        RETURNING t.table_name, before.in_flight_work_id AS work_id
       ), ${DROP_SEED_PLAN}
       SELECT table_name, work_id FROM updated`,
      [replicationId, reason, now, tableName],
    );
    return releasedWork(replicationId, result.rows);
  }

  /** Tables in Error (and any waiting for a retry) are tried again at once: StartReplication. */
  async resumeTables(replicationId: string, now: Date): Promise<number> {
    const result = await this.pool.query(
      `UPDATE table_states
          SET phase = ${phaseAfter('retry-asked')},
              last_error = NULL, last_error_detail = NULL, failure_count = 0, retry_at = NULL, updated_at = $2
        WHERE replication_id = $1 AND (phase = 'Error' OR retry_at IS NOT NULL OR last_error IS NOT NULL) AND ${phaseAllows('retry-asked')}`,
      [replicationId, now],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Marks tables (every table of the replication when `tableNames` is null) as leaving it: no work is claimed for them
   * any more and the work they had in flight, returned, is released, so none of its reports (a failed read asking for a
   * reseed, whose seed would enable tracking again) moves them while their source is released. Undone by registerTables.
   */
  async detachTables(replicationId: string, tableNames: string[] | null): Promise<ReleasedWork[]> {
    if (tableNames?.length === 0) return [];
    const result = await this.pool.query<{ table_name: string; work_id: string | null }>(
      `WITH before AS (
         SELECT table_name, in_flight_work_id FROM table_states
          WHERE replication_id = $1 AND ($2::text[] IS NULL OR table_name = ANY($2::text[])) FOR UPDATE
       )
       UPDATE table_states t SET leaving = true, ${RELEASE}, updated_at = now()
         FROM before
        WHERE t.replication_id = $1 AND t.table_name = before.table_name
        RETURNING t.table_name, before.in_flight_work_id AS work_id`,
      [replicationId, tableNames],
    );
    return releasedWork(replicationId, result.rows);
  }

  /** Forgets tables no longer selected (their warehouse tables stay); returns the work they had in flight. */
  async removeTables(replicationId: string, tableNames: string[]): Promise<ReleasedWork[]> {
    if (tableNames.length === 0) return [];
    const result = await this.pool.query<{ table_name: string; work_id: string | null }>(
      `DELETE FROM table_states WHERE replication_id = $1 AND table_name = ANY($2::text[])
       RETURNING table_name, in_flight_work_id AS work_id`,
      [replicationId, tableNames],
    );
    return releasedWork(replicationId, result.rows);
  }

  /** Tracked tables of other live replications, by replication (who else relies on a source's change tracking). */
  async trackedTablesOfOthers(replicationId: string): Promise<{ replicationId: string; tableName: string }[]> {
    const result = await this.pool.query<{ replication_id: string; table_name: string }>(
      `SELECT t.replication_id, t.table_name FROM table_states t JOIN replications r ON r.id = t.replication_id
        WHERE t.replication_id <> $1 AND t.tracked AND NOT t.leaving AND r.status <> 'Deleting'`,
      [replicationId],
    );
    return result.rows.map((row) => ({ replicationId: row.replication_id, tableName: row.table_name }));
  }

  async markRetentionAlerted(replicationId: string, tableName: string, now: Date): Promise<void> {
    await this.pool.query('UPDATE table_states SET retention_alerted_at = $3 WHERE replication_id = $1 AND table_name = $2', [replicationId, tableName, now]);
  }

  /** Takes work away from a table without counting it as a failure (its workers died or its message was lost). */
  async releaseWork(replicationId: string, tableName: string, workId: string, reason: string, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states SET ${RELEASE}, last_error = $4, last_error_detail = NULL, updated_at = $5
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3`,
      [replicationId, tableName, workId, reason, now],
    );
    return result.rowCount === 1;
  }
}

function releasedWork(replicationId: string, rows: { table_name: string; work_id: string | null }[]): ReleasedWork[] {
  return rows.flatMap((row) => (row.work_id === null ? [] : [{ replicationId, tableName: row.table_name, workId: row.work_id }]));
}

function toRuntimeState(row: RuntimeRow): TableRuntimeState {
  return {
    replicationId: row.replication_id,
    tableName: row.table_name,
    phase: row.phase,
    tracked: row.tracked,
    lastVersion: row.last_version,
    lastIncarnation: row.last_incarnation,
    inFlightWorkId: row.in_flight_work_id,
    inFlightKind: row.in_flight_kind,
    inFlightSince: row.in_flight_since,
    inFlightPublishedAt: row.in_flight_published_at,
    inFlightGroupId: row.in_flight_work_id === null ? null : row.in_flight_group,
    lastProgressAt: row.last_progress_at,
    lastSeededAt: row.last_seeded_at,
    lastCycleAt: row.last_cycle_at,
    lastCycleRows: Number(row.last_cycle_rows),
    lastError: row.last_error,
    lastErrorDetail: row.last_error_detail,
    workEpoch: Number(row.work_epoch),
    ctTimeoutLevel: row.ct_timeout_level,
    failureCount: row.failure_count,
    retryAt: row.retry_at,
    watermarkAt: row.watermark_at,
    retentionAlertedAt: row.retention_alerted_at,
    updatedAt: row.updated_at,
    seedPlan:
      row.plan_seed_id === undefined || row.plan_seed_id === null
        ? null
        : {
            seedId: row.plan_seed_id,
            startVersion: row.plan_start_version ?? '0',
            sourceIncarnation: row.plan_source_incarnation ?? null,
            chunkCount: row.plan_chunk_count ?? 1,
            chunksLoaded: Number(row.plan_chunks_loaded ?? 0),
          },
  };
}
