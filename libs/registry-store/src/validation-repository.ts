import type { Pool, PoolClient } from 'pg';
import type { DifferingKey, TableValidation, ValidationDescription, ValidationPhase, ValidationState } from '@svc/contracts';
import { inTransaction } from './control-database';

/** A table a new validation covers: Pending, or Skipped with its reason. */
export interface NewValidationTable {
  tableName: string;
  state: 'Pending' | 'Skipped';
  reason: string | null;
}

/** A table's last finished comparison. */
export interface LastValidation {
  validationId: string;
  state: string;
  mismatchedKeys: number;
  endedAt: Date;
}

/** A Pending table handed to a worker. */
export interface DispatchedValidation {
  validationId: string;
  replicationId: string;
  tableName: string;
  workId: string;
  /** RepairReplication asked for it: differing keys are applied again before the table is compared again. */
  repair: boolean;
}

export interface ValidationProgressUpdate {
  phase: ValidationPhase;
  rowsCompared: number;
  rowsEstimated: number;
  sourceVersion: string;
}

export interface ValidationOutcome {
  state: 'Validated' | 'Mismatched' | 'Repaired' | 'Failed' | 'Skipped';
  reason: string | null;
  sourceVersion: string | null;
  rowsCompared: number;
  rowsEstimated: number | null;
  missingKeys: number;
  extraKeys: number;
  differentKeys: number;
  unsettledKeys: number;
  differingKeys: DifferingKey[];
}

export interface ValidationStore {
  create(validationId: string, replicationId: string, tables: readonly NewValidationTable[], requestedAt: Date, scheduled: boolean): Promise<void>;
  /**
   * A scheduled validation, unless the replication has one open or was validated (on request or on schedule) after
   * `notSince`: false then. Registries deciding at once create it once (a lock per replication).
   */
  createScheduled(validationId: string, replicationId: string, tables: readonly NewValidationTable[], requestedAt: Date, notSince: Date): Promise<boolean>;
  /** The replication's validation (its latest when `validationId` is absent); null when there is none. */
  describe(replicationId: string, validationId?: string): Promise<ValidationDescription | null>;
  /** Replications with Pending tables, and how many of their tables run now. */
  openByReplication(): Promise<Array<{ replicationId: string; pending: number; running: number }>>;
  /** Marks up to `limit` of the replication's Pending tables Running under new work ids (oldest validation first). */
  dispatch(replicationId: string, limit: number, newWorkId: () => string, now: Date): Promise<DispatchedValidation[]>;
  /** Running tables whose worker has not reported since `before`. */
  stalled(before: Date): Promise<Array<DispatchedValidation & { dispatches: number }>>;
  /** A stalled table back to Pending (dispatched again by the next round); false when it moved on meanwhile. */
  requeue(validationId: string, tableName: string, workId: string): Promise<boolean>;
  /** Progress of the table's current work; false when `workId` is not it (the work should stop). */
  recordProgress(validationId: string, tableName: string, workId: string, progress: ValidationProgressUpdate, now: Date): Promise<boolean>;
  /** The table's outcome, from its current work (or with `workId` null, from the registry itself); false when it is not current. */
  finish(validationId: string, tableName: string, workId: string | null, outcome: ValidationOutcome, now: Date): Promise<boolean>;
  /** Every Running or Pending table of the replication ends Failed with `reason` (the replication was stopped or deleted). */
  failOpen(replicationId: string, reason: string, now: Date): Promise<number>;
  /** Each table's last finished comparison (Validated, Mismatched or Repaired), by replication and table name; of one replication when given. */
  lastByTable(replicationId?: string): Promise<Map<string, Map<string, LastValidation>>>;
  /** The table was repaired by a reseed asked at `since`: it is validated again once a seed completes after it (startRevalidations). */
  revalidateAfterReseed(validationId: string, tableName: string, since: Date): Promise<void>;
  /**
   * A validation of each replication's tables repaired by a reseed that has completed since (Tracking or Untracked
   * again): started once however many registries ask, the tables' marks cleared in the same transaction.
   */
  startRevalidations(newValidationId: () => string, now: Date): Promise<Array<{ replicationId: string; validationId: string; tables: string[] }>>;
  /** The validation's Mismatched tables among `tableNames` are queued for repair; those that were. */
  requestRepair(validationId: string, tableNames: readonly string[], now: Date): Promise<string[]>;
}

interface ValidationRow {
  validation_id: string;
  replication_id: string;
  requested_at: Date;
  scheduled: boolean;
}

interface TableRow {
  table_name: string;
  state: ValidationState;
  reason: string | null;
  phase: string | null;
  source_version: string | null;
  rows_compared: string;
  rows_estimated: string | null;
  missing_keys: string;
  extra_keys: string;
  different_keys: string;
  unsettled_keys: string;
  differing_keys: DifferingKey[];
  started_at: Date | null;
  ended_at: Date | null;
}

function tableOf(row: TableRow): TableValidation {
  const [missing, extra, different] = [Number(row.missing_keys), Number(row.extra_keys), Number(row.different_keys)];
  return {
    name: row.table_name,
    state: row.state,
    reason: row.reason,
    rowsCompared: Number(row.rows_compared),
    rowsEstimated: row.rows_estimated === null ? null : Number(row.rows_estimated),
    mismatchedKeys: missing + extra + different,
    missingKeys: missing,
    extraKeys: extra,
    differentKeys: different,
    unsettledKeys: Number(row.unsettled_keys),
    differingKeys: row.differing_keys,
    sourceVersion: row.source_version,
    startedAt: row.started_at?.toISOString() ?? null,
    endedAt: row.ended_at?.toISOString() ?? null,
  };
}

/** A table being compared (or repaired) by a worker, and one not finished yet. */
const RUNNING = "state IN ('Running', 'Repairing')";
const OPEN = "state IN ('Pending', 'Running', 'Repairing')";

/** Validations and their tables' states (migration 12). */
export class ValidationRepository implements ValidationStore {
  constructor(private readonly pool: Pool) {}

  async create(validationId: string, replicationId: string, tables: readonly NewValidationTable[], requestedAt: Date, scheduled: boolean): Promise<void> {
    await inTransaction(this.pool, (client) => insertValidation(client, { validationId, replicationId, tables, requestedAt, scheduled }));
  }

  async createScheduled(validationId: string, replicationId: string, tables: readonly NewValidationTable[], requestedAt: Date, notSince: Date): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('validation schedule ' || $1))", [replicationId]);
      const recent = await client.query(
        `SELECT 1 FROM validations v WHERE v.replication_id = $1
            AND (v.requested_at > $2 OR EXISTS (SELECT 1 FROM validation_tables t WHERE t.validation_id = v.validation_id AND t.${OPEN}))
          LIMIT 1`,
        [replicationId, notSince],
      );
      if ((recent.rowCount ?? 0) > 0) return false;
      await insertValidation(client, { validationId, replicationId, tables, requestedAt, scheduled: true });
      return true;
    });
  }

  async revalidateAfterReseed(validationId: string, tableName: string, since: Date): Promise<void> {
    await this.pool.query('UPDATE validation_tables SET revalidate_after = $3 WHERE validation_id = $1 AND table_name = $2', [validationId, tableName, since]);
  }

  async startRevalidations(newValidationId: () => string, now: Date): Promise<Array<{ replicationId: string; validationId: string; tables: string[] }>> {
    return inTransaction(this.pool, async (client) => {
      // A mark whose table left the replication is cleared too; SKIP LOCKED: another registry is taking those.
      const due = await client.query<{ replication_id: string; table_name: string; reseeded: boolean }>(
        `WITH due AS (
           SELECT vt.validation_id, vt.table_name, vt.replication_id, ts.phase IS NOT NULL AS reseeded
             FROM validation_tables vt
             LEFT JOIN table_states ts ON ts.replication_id = vt.replication_id AND ts.table_name = vt.table_name
            WHERE vt.revalidate_after IS NOT NULL
              AND (ts.phase IS NULL OR (ts.phase IN ('Tracking', 'Untracked') AND ts.last_seeded_at >= vt.revalidate_after))
              FOR UPDATE OF vt SKIP LOCKED
         )
         UPDATE validation_tables v SET revalidate_after = NULL FROM due
          WHERE v.validation_id = due.validation_id AND v.table_name = due.table_name
         RETURNING due.replication_id, due.table_name, due.reseeded`,
      );
      const byReplication = new Map<string, Set<string>>();
      for (const row of due.rows.filter((entry) => entry.reseeded)) byReplication.set(row.replication_id, (byReplication.get(row.replication_id) ?? new Set()).add(row.table_name));
      const started: Array<{ replicationId: string; validationId: string; tables: string[] }> = [];
      for (const [replicationId, names] of byReplication) {
        const validationId = newValidationId();
        const tables = [...names].sort();
        await insertValidation(client, { validationId, replicationId, tables: tables.map((tableName) => ({ tableName, state: 'Pending', reason: null })), requestedAt: now, scheduled: true });
        started.push({ replicationId, validationId, tables });
      }
      return started;
    });
  }

  async describe(replicationId: string, validationId?: string): Promise<ValidationDescription | null> {
    const found = await this.pool.query<ValidationRow>(
      `SELECT validation_id, replication_id, requested_at, scheduled FROM validations
        WHERE replication_id = $1 AND ($2::uuid IS NULL OR validation_id = $2::uuid)
        ORDER BY requested_at DESC LIMIT 1`,
      [replicationId, validationId ?? null],
    );
    const validation = found.rows[0];
    if (validation === undefined) return null;
    const tables = await this.pool.query<TableRow>(
      `SELECT table_name, state, reason, phase, source_version, rows_compared, rows_estimated, missing_keys, extra_keys, different_keys,
              unsettled_keys, differing_keys, started_at, ended_at
         FROM validation_tables WHERE validation_id = $1 ORDER BY table_name`,
      [validation.validation_id],
    );
    return {
      replicationId: validation.replication_id,
      validationId: validation.validation_id,
      requestedAt: validation.requested_at.toISOString(),
      scheduled: validation.scheduled,
      tables: tables.rows.map(tableOf),
    };
  }

  async openByReplication(): Promise<Array<{ replicationId: string; pending: number; running: number }>> {
    const result = await this.pool.query<{ replication_id: string; pending: string; running: string }>(
      `SELECT replication_id, count(*) FILTER (WHERE state = 'Pending') AS pending, count(*) FILTER (WHERE state <> 'Pending') AS running
         FROM validation_tables WHERE ${OPEN} GROUP BY replication_id`,
    );
    return result.rows.map((row) => ({ replicationId: row.replication_id, pending: Number(row.pending), running: Number(row.running) }));
  }

  async dispatch(replicationId: string, limit: number, newWorkId: () => string, now: Date): Promise<DispatchedValidation[]> {
    if (limit <= 0) return [];
    const candidates = await this.pool.query<{ validation_id: string; table_name: string; repair: boolean }>(
      `SELECT t.validation_id, t.table_name, t.repair FROM validation_tables t JOIN validations v USING (validation_id)
        WHERE t.replication_id = $1 AND t.state = 'Pending' ORDER BY v.requested_at, t.table_name LIMIT $2`,
      [replicationId, limit],
    );
    const dispatched: DispatchedValidation[] = [];
    for (const candidate of candidates.rows) {
      const workId = newWorkId();
      const claimed = await this.pool.query(
        `UPDATE validation_tables SET state = CASE WHEN repair THEN 'Repairing' ELSE 'Running' END, work_id = $3, dispatched_at = $4, last_progress_at = $4, dispatches = dispatches + 1,
                started_at = COALESCE(started_at, $4), phase = NULL
          WHERE validation_id = $1 AND table_name = $2 AND state = 'Pending'`,
        [candidate.validation_id, candidate.table_name, workId, now],
      );
      if (claimed.rowCount === 1) dispatched.push({ validationId: candidate.validation_id, replicationId, tableName: candidate.table_name, workId, repair: candidate.repair });
    }
    return dispatched;
  }

  async stalled(before: Date): Promise<Array<DispatchedValidation & { dispatches: number }>> {
    const result = await this.pool.query<{ validation_id: string; replication_id: string; table_name: string; work_id: string; dispatches: number; repair: boolean }>(
      `SELECT validation_id, replication_id, table_name, work_id, dispatches, repair FROM validation_tables
        WHERE ${RUNNING} AND last_progress_at < $1`,
      [before],
    );
    return result.rows.map((row) => ({
      validationId: row.validation_id,
      replicationId: row.replication_id,
      tableName: row.table_name,
      workId: row.work_id,
      dispatches: row.dispatches,
      repair: row.repair,
    }));
  }

  async requeue(validationId: string, tableName: string, workId: string): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE validation_tables SET state = 'Pending', work_id = NULL WHERE validation_id = $1 AND table_name = $2 AND work_id = $3 AND ${RUNNING}`,
      [validationId, tableName, workId],
    );
    return result.rowCount === 1;
  }

  async recordProgress(validationId: string, tableName: string, workId: string, progress: ValidationProgressUpdate, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE validation_tables SET phase = $4, rows_compared = $5, rows_estimated = $6, source_version = $7, last_progress_at = $8
        WHERE validation_id = $1 AND table_name = $2 AND work_id = $3 AND ${RUNNING}`,
      [validationId, tableName, workId, progress.phase, progress.rowsCompared, progress.rowsEstimated, progress.sourceVersion, now],
    );
    return result.rowCount === 1;
  }

  async finish(validationId: string, tableName: string, workId: string | null, outcome: ValidationOutcome, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE validation_tables SET state = $4, reason = $5, source_version = COALESCE($6, source_version), rows_compared = $7,
              rows_estimated = COALESCE($8, rows_estimated), missing_keys = $9, extra_keys = $10, different_keys = $11, unsettled_keys = $12,
              differing_keys = $13::jsonb, ended_at = $14, last_progress_at = $14, phase = NULL, work_id = NULL
        WHERE validation_id = $1 AND table_name = $2 AND ($3::uuid IS NULL OR work_id = $3::uuid) AND ${OPEN}`,
      [
        validationId,
        tableName,
        workId,
        outcome.state,
        outcome.reason,
        outcome.sourceVersion,
        outcome.rowsCompared,
        outcome.rowsEstimated,
        outcome.missingKeys,
        outcome.extraKeys,
        outcome.differentKeys,
        outcome.unsettledKeys,
        JSON.stringify(outcome.differingKeys),
        now,
      ],
    );
    return result.rowCount === 1;
  }

  async failOpen(replicationId: string, reason: string, now: Date): Promise<number> {
    const result = await this.pool.query(
      `UPDATE validation_tables SET state = 'Failed', reason = $2, ended_at = $3, work_id = NULL, phase = NULL
        WHERE replication_id = $1 AND ${OPEN}`,
      [replicationId, reason, now],
    );
    return result.rowCount ?? 0;
  }

  async lastByTable(replicationId?: string): Promise<Map<string, Map<string, LastValidation>>> {
    const result = await this.pool.query<{ replication_id: string; validation_id: string; table_name: string; state: string; mismatched: string; ended_at: Date }>(
      `SELECT DISTINCT ON (replication_id, table_name) replication_id, validation_id, table_name, state, missing_keys + extra_keys + different_keys AS mismatched, ended_at
         FROM validation_tables WHERE state IN ('Validated', 'Mismatched', 'Repaired') AND ended_at IS NOT NULL AND ($1::uuid IS NULL OR replication_id = $1::uuid)
        ORDER BY replication_id, table_name, ended_at DESC`,
      [replicationId ?? null],
    );
    const byReplication = new Map<string, Map<string, LastValidation>>();
    for (const row of result.rows) {
      const tables = byReplication.get(row.replication_id) ?? new Map<string, LastValidation>();
      tables.set(row.table_name, { validationId: row.validation_id, state: row.state, mismatchedKeys: Number(row.mismatched), endedAt: row.ended_at });
      byReplication.set(row.replication_id, tables);
    }
    return byReplication;
  }

  async requestRepair(validationId: string, tableNames: readonly string[], now: Date): Promise<string[]> {
    const result = await this.pool.query<{ table_name: string }>(
      `UPDATE validation_tables SET state = 'Pending', repair = true, reason = NULL, work_id = NULL, dispatches = 0, ended_at = NULL, last_progress_at = $3
        WHERE validation_id = $1 AND table_name = ANY ($2::text[]) AND state = 'Mismatched'
        RETURNING table_name`,
      [validationId, [...tableNames], now],
    );
    return result.rows.map((row) => row.table_name).sort();
  }
}

async function insertValidation(
  client: PoolClient,
  validation: { validationId: string; replicationId: string; tables: readonly NewValidationTable[]; requestedAt: Date; scheduled: boolean },
): Promise<void> {
  const { validationId, replicationId, tables, requestedAt, scheduled } = validation;
  await client.query('INSERT INTO validations (validation_id, replication_id, requested_at, scheduled) VALUES ($1, $2, $3, $4)', [validationId, replicationId, requestedAt, scheduled]);
  await client.query(
    `INSERT INTO validation_tables (validation_id, replication_id, table_name, state, reason, ended_at)
     SELECT $1, $2, t.name, t.state, t.reason, CASE WHEN t.state = 'Skipped' THEN $3::timestamptz END
     FROM unnest($4::text[], $5::text[], $6::text[]) AS t (name, state, reason)`,
    [validationId, replicationId, requestedAt, tables.map((table) => table.tableName), tables.map((table) => table.state), tables.map((table) => table.reason)],
  );
}
