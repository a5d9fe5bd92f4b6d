import type { Pool } from 'pg';
import type { AlertRecord } from '@svc/contracts';
import { isUuid } from '@svc/contracts';

export type NewAlert = Pick<AlertRecord, 'replicationId' | 'kind' | 'message'>;

export interface AlertStore {
  listByReplication(replicationId: string): Promise<AlertRecord[]>;
  record(alert: NewAlert): Promise<AlertRecord>;
  /** Alerts on record, by kind (monitoring). */
  countByKind(): Promise<Partial<Record<AlertRecord['kind'], number>>>;
}

interface AlertRow {
  id: string;
  replication_id: string;
  kind: AlertRecord['kind'];
  message: string;
  created_at: Date;
}

export class AlertRepository implements AlertStore {
  constructor(private readonly pool: Pool) {}

  async listByReplication(replicationId: string): Promise<AlertRecord[]> {
    if (!isUuid(replicationId)) return [];
    const result = await this.pool.query<AlertRow>(
      'SELECT id, replication_id, kind, message, created_at FROM alerts WHERE replication_id = $1 ORDER BY created_at, id',
      [replicationId],
    );
    return result.rows.map(toAlert);
  }

  async countByKind(): Promise<Partial<Record<AlertRecord['kind'], number>>> {
    const result = await this.pool.query<{ kind: AlertRecord['kind']; n: number }>('SELECT kind, count(*)::int AS n FROM alerts GROUP BY kind ORDER BY kind');
    return Object.fromEntries(result.rows.map((row) => [row.kind, row.n]));
  }

  async record(alert: NewAlert): Promise<AlertRecord> {
    const result = await this.pool.query<AlertRow>(
      'INSERT INTO alerts (replication_id, kind, message) VALUES ($1, $2, $3) RETURNING id, replication_id, kind, message, created_at',
      [alert.replicationId, alert.kind, alert.message],
    );
    const row = result.rows[0];
    if (row === undefined) throw new Error('INSERT INTO alerts returned no row');
    return toAlert(row);
  }
}

function toAlert(row: AlertRow): AlertRecord {
  return {
    alertId: row.id,
    replicationId: row.replication_id,
    kind: row.kind,
    message: row.message,
    createdAt: row.created_at.toISOString(),
  };
}
