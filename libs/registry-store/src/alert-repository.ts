import type { Pool } from 'pg';
import type { AlertRecord } from '@svc/contracts';
import { isUuid } from '@svc/contracts';
import { deliveriesOfAlerts } from './alert-delivery-repository';

export type NewAlert = Pick<AlertRecord, 'replicationId' | 'kind' | 'message' | 'tableName'>;

/** Alerts a condition that ended resolves: of this kind, about this table (null: about the whole replication). */
export interface ResolvedCondition {
  kind: AlertRecord['kind'];
  tableName: string | null;
}

/** Alerts neither acknowledged nor resolved, per replication and kind (monitoring). */
export interface ActiveAlertCount {
  replicationId: string;
  kind: AlertRecord['kind'];
  count: number;
}

export interface AlertStore {
  listByReplication(replicationId: string): Promise<AlertRecord[]>;
  record(alert: NewAlert): Promise<AlertRecord>;
  /** Acknowledges the replication's active alerts (those of `alertIds`, or all); how many it acknowledged. */
  acknowledge(replicationId: string, alertIds: readonly string[] | null, by: string, at: Date): Promise<number>;
  /** Resolves the replication's active or acknowledged alerts of these conditions, in one statement; how many. */
  resolve(replicationId: string, conditions: readonly ResolvedCondition[], resolution: string, at: Date): Promise<number>;
  activeCounts(): Promise<ActiveAlertCount[]>;
}

interface AlertRow {
  id: string;
  replication_id: string;
  kind: AlertRecord['kind'];
  message: string;
  created_at: Date;
  table_name: string | null;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolution: string | null;
}

const COLUMNS = 'id, replication_id, kind, message, created_at, table_name, acknowledged_at, acknowledged_by, resolved_at, resolution';

export class AlertRepository implements AlertStore {
  constructor(private readonly pool: Pool) {}

  async listByReplication(replicationId: string): Promise<AlertRecord[]> {
    if (!isUuid(replicationId)) return [];
    const result = await this.pool.query<AlertRow>(`SELECT ${COLUMNS} FROM alerts WHERE replication_id = $1 ORDER BY created_at, id`, [replicationId]);
    const deliveries = await deliveriesOfAlerts(this.pool, result.rows.map((row) => row.id));
    return result.rows.map((row) => {
      const alert = toAlert(row);
      const sent = deliveries.get(row.id);
      return sent === undefined ? alert : { ...alert, deliveries: sent };
    });
  }

  async activeCounts(): Promise<ActiveAlertCount[]> {
    const result = await this.pool.query<{ replication_id: string; kind: AlertRecord['kind']; n: number }>(
      `SELECT replication_id, kind, count(*)::int AS n FROM alerts
        WHERE resolved_at IS NULL AND acknowledged_at IS NULL GROUP BY replication_id, kind ORDER BY replication_id, kind`,
    );
    return result.rows.map((row) => ({ replicationId: row.replication_id, kind: row.kind, count: row.n }));
  }

  async record(alert: NewAlert): Promise<AlertRecord> {
    // With its deliveries to the targets it is meant for, in the same statement: an alert is never stored undelivered.
    const result = await this.pool.query<AlertRow>(
      `WITH recorded AS (
         INSERT INTO alerts (replication_id, kind, message, table_name) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}
       ), deliveries AS (
         INSERT INTO alert_deliveries (alert_id, target_name)
         SELECT recorded.id, t.name FROM recorded, alert_targets t
          WHERE (t.alert_kinds IS NULL OR $2 = ANY (t.alert_kinds)) AND (t.replication_ids IS NULL OR $1::uuid = ANY (t.replication_ids))
       )
       SELECT * FROM recorded`,
      [alert.replicationId, alert.kind, alert.message, alert.tableName ?? null],
    );
    const row = result.rows[0];
    if (row === undefined) throw new Error('INSERT INTO alerts returned no row');
    return toAlert(row);
  }

  async acknowledge(replicationId: string, alertIds: readonly string[] | null, by: string, at: Date): Promise<number> {
    if (!isUuid(replicationId)) return 0;
    const result = await this.pool.query(
      `UPDATE alerts SET acknowledged_at = $3, acknowledged_by = $4
        WHERE replication_id = $1 AND acknowledged_at IS NULL AND resolved_at IS NULL AND ($2::uuid[] IS NULL OR id = ANY ($2::uuid[]))`,
      [replicationId, alertIds === null ? null : alertIds.filter(isUuid), at, by],
    );
    return result.rowCount ?? 0;
  }

  async resolve(replicationId: string, conditions: readonly ResolvedCondition[], resolution: string, at: Date): Promise<number> {
    if (!isUuid(replicationId) || conditions.length === 0) return 0;
    // Run after every completed batch: the partial index holds only unresolved alerts, so this is cheap when there are none.
    const result = await this.pool.query(
      `UPDATE alerts SET resolved_at = $4, resolution = $5
         FROM unnest($2::text[], $3::text[]) AS ended (kind, table_name)
        WHERE alerts.replication_id = $1 AND alerts.resolved_at IS NULL
          AND alerts.kind = ended.kind AND alerts.table_name IS NOT DISTINCT FROM ended.table_name`,
      [replicationId, conditions.map((condition) => condition.kind), conditions.map((condition) => condition.tableName), at, resolution],
    );
    return result.rowCount ?? 0;
  }
}

function toAlert(row: AlertRow): AlertRecord {
  return {
    alertId: row.id,
    replicationId: row.replication_id,
    kind: row.kind,
    message: row.message,
    createdAt: row.created_at.toISOString(),
    ...(row.table_name !== null && { tableName: row.table_name }),
    state: row.resolved_at !== null ? 'Resolved' : row.acknowledged_at !== null ? 'Acknowledged' : 'Active',
    ...(row.acknowledged_at !== null && { acknowledgedAt: row.acknowledged_at.toISOString() }),
    ...(row.acknowledged_by !== null && { acknowledgedBy: row.acknowledged_by }),
    ...(row.resolved_at !== null && { resolvedAt: row.resolved_at.toISOString() }),
    ...(row.resolution !== null && { resolution: row.resolution }),
  };
}
