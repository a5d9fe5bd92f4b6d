import type { Pool } from 'pg';
import type { AlertDelivery, AlertRecord } from '@svc/contracts';
import type { AlertTarget, AlertTargetRepository } from './alert-target-repository';

/** A delivery the loop claimed: the alert, the target with its secrets, and the attempt it is. */
export interface DueDelivery {
  alert: Pick<AlertRecord, 'alertId' | 'replicationId' | 'kind' | 'message' | 'createdAt' | 'tableName'> & { state: AlertRecord['state'] };
  replicationName: string | null;
  target: AlertTarget;
  /** 1 for the first try. */
  attempt: number;
}

/** What became of an attempt. */
export type DeliveryOutcome =
  | { kind: 'delivered'; at: Date }
  | { kind: 'retry'; error: string; at: Date; nextAttemptAt: Date }
  | { kind: 'failed'; error: string; at: Date };

export interface AlertDeliveryStore {
  /**
   * Claims up to `limit` deliveries that are due, for `leaseSeconds`: another registry does not take them in that time,
   * and a registry that dies holding them leaves them to be tried again when it ends (at least once).
   */
  claimDue(limit: number, leaseSeconds: number): Promise<DueDelivery[]>;
  settle(alertId: string, targetName: string, outcome: DeliveryOutcome): Promise<void>;
  /** The deliveries of these alerts, by alert id. */
  ofAlerts(alertIds: readonly string[]): Promise<Map<string, AlertDelivery[]>>;
  /** Pending deliveries per target (monitoring). */
  pendingByTarget(): Promise<Map<string, number>>;
}

interface DueRow {
  alert_id: string;
  replication_id: string;
  kind: AlertRecord['kind'];
  message: string;
  created_at: Date;
  table_name: string | null;
  acknowledged: boolean;
  resolved: boolean;
  replication_name: string | null;
  attempts: number;
  name: string;
  type: 'Webhook' | 'Sns' | 'Email';
  settings: Record<string, never>;
  secrets: Buffer | null;
  alert_kinds: AlertRecord['kind'][] | null;
  replication_ids: string[] | null;
}

interface DeliveryRow {
  alert_id: string;
  target_name: string;
  state: AlertDelivery['state'];
  attempts: number;
  delivered_at: Date | null;
  last_error: string | null;
  next_attempt_at: Date;
}

/** The outbox of alert deliveries (migration 22): rows are made with the alert, in AlertRepository.record. */
export class AlertDeliveryRepository implements AlertDeliveryStore {
  constructor(
    private readonly pool: Pool,
    private readonly targets: Pick<AlertTargetRepository, 'opened'>,
  ) {}

  async claimDue(limit: number, leaseSeconds: number): Promise<DueDelivery[]> {
    const result = await this.pool.query<DueRow>(
      `WITH due AS (
         SELECT alert_id, target_name FROM alert_deliveries
          WHERE state = 'Pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE alert_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $2)
           FROM due WHERE d.alert_id = due.alert_id AND d.target_name = due.target_name
         RETURNING d.alert_id, d.target_name, d.attempts
       )
       SELECT a.id AS alert_id, a.replication_id, a.kind, a.message, a.created_at, a.table_name,
              a.acknowledged_at IS NOT NULL AS acknowledged, a.resolved_at IS NOT NULL AS resolved, r.name AS replication_name,
              c.attempts, t.name, t.type, t.settings, t.secrets, t.alert_kinds, t.replication_ids::text[] AS replication_ids
         FROM claimed c JOIN alerts a ON a.id = c.alert_id JOIN alert_targets t ON t.name = c.target_name
         LEFT JOIN replications r ON r.id = a.replication_id`,
      [limit, leaseSeconds],
    );
    return result.rows.map((row) => ({
      alert: {
        alertId: row.alert_id,
        replicationId: row.replication_id,
        kind: row.kind,
        message: row.message,
        createdAt: row.created_at.toISOString(),
        ...(row.table_name !== null && { tableName: row.table_name }),
        state: row.resolved ? 'Resolved' : row.acknowledged ? 'Acknowledged' : 'Active',
      },
      replicationName: row.replication_name,
      target: this.targets.opened(row),
      attempt: row.attempts,
    }));
  }

  async settle(alertId: string, targetName: string, outcome: DeliveryOutcome): Promise<void> {
    if (outcome.kind === 'delivered') {
      await this.pool.query(
        "UPDATE alert_deliveries SET state = 'Delivered', delivered_at = $3 WHERE alert_id = $1 AND target_name = $2",
        [alertId, targetName, outcome.at],
      );
      return;
    }
    await this.pool.query(
      `UPDATE alert_deliveries SET state = $3, last_error = $4, last_error_at = $5, next_attempt_at = COALESCE($6, next_attempt_at)
        WHERE alert_id = $1 AND target_name = $2`,
      [alertId, targetName, outcome.kind === 'retry' ? 'Pending' : 'Failed', outcome.error, outcome.at, outcome.kind === 'retry' ? outcome.nextAttemptAt : null],
    );
  }

  ofAlerts(alertIds: readonly string[]): Promise<Map<string, AlertDelivery[]>> {
    return deliveriesOfAlerts(this.pool, alertIds);
  }

  async pendingByTarget(): Promise<Map<string, number>> {
    const result = await this.pool.query<{ target_name: string; n: number }>(
      `SELECT t.name AS target_name, count(d.alert_id)::int AS n
         FROM alert_targets t LEFT JOIN alert_deliveries d ON d.target_name = t.name AND d.state = 'Pending' GROUP BY t.name`,
    );
    return new Map(result.rows.map((row) => [row.target_name, row.n]));
  }
}

/** The deliveries of these alerts, by alert id. */
export async function deliveriesOfAlerts(pool: Pool, alertIds: readonly string[]): Promise<Map<string, AlertDelivery[]>> {
  const byAlert = new Map<string, AlertDelivery[]>();
  if (alertIds.length === 0) return byAlert;
  const result = await pool.query<DeliveryRow>(
    `SELECT alert_id, target_name, state, attempts, delivered_at, last_error, next_attempt_at
       FROM alert_deliveries WHERE alert_id = ANY ($1::uuid[]) ORDER BY alert_id, target_name`,
    [alertIds],
  );
  for (const row of result.rows) {
    const deliveries = byAlert.get(row.alert_id) ?? [];
    deliveries.push({
      target: row.target_name,
      state: row.state,
      attempts: row.attempts,
      ...(row.delivered_at !== null && { deliveredAt: row.delivered_at.toISOString() }),
      ...(row.last_error !== null && row.state !== 'Delivered' && { lastError: row.last_error }),
      ...(row.state === 'Pending' && { nextAttemptAt: row.next_attempt_at.toISOString() }),
    });
    byAlert.set(row.alert_id, deliveries);
  }
  return byAlert;
}
