import type { Pool } from 'pg';
import type { SecretBox } from '@svc/crypto';
import type { AlertRecord, AlertTargetDeliveries, AlertTargetType } from '@svc/contracts';
import { alertTargetSecretsAt } from './secret-locations';

/** Where and how a target is reached, secrets included (only the registry's delivery loop opens them). */
export type AlertTargetSpec =
  | { type: 'Webhook'; url: string; signingSecret: string }
  | { type: 'Sns'; topicArn: string; accessKeyId?: string; secretAccessKey?: string }
  | { type: 'Email'; smtpUrl: string; from: string; to: string[] };

export interface AlertTarget {
  name: string;
  spec: AlertTargetSpec;
  /** Only these kinds; every kind when null. */
  alertKinds: AlertRecord['kind'][] | null;
  /** Only alerts of these replications; every replication when null. */
  replicationIds: string[] | null;
}

/** A target as it may be shown: what its settings say without a secret. */
export interface AlertTargetListing {
  name: string;
  type: AlertTargetType;
  settings: PublicTargetSettings;
  alertKinds: AlertRecord['kind'][] | null;
  replicationIds: string[] | null;
  createdAt: Date;
  updatedAt: Date;
  deliveries: AlertTargetDeliveries;
}

export interface PublicTargetSettings {
  endpoint?: string;
  topicArn?: string;
  smtpServer?: string;
  from?: string;
  to?: string[];
}

export interface AlertTargetStore {
  get(name: string): Promise<AlertTarget | null>;
  /** Creates or replaces the target; a replaced one's deliveries that gave up in the last `reopenHours` are tried again. */
  put(target: AlertTarget, reopenHours: number): Promise<'created' | 'replaced'>;
  /** Deletes the target and its deliveries; false when there was none. */
  delete(name: string): Promise<boolean>;
  list(): Promise<AlertTargetListing[]>;
}

interface TargetRow {
  name: string;
  type: AlertTargetType;
  settings: PublicTargetSettings;
  secrets: Buffer | null;
  alert_kinds: AlertRecord['kind'][] | null;
  replication_ids: string[] | null;
}

interface ListingRow extends Omit<TargetRow, 'secrets'> {
  created_at: Date;
  updated_at: Date;
  delivered: number;
  pending: number;
  failed: number;
  last_delivered_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

/** Alert targets (migration 22): public settings in the clear, every secret (a webhook's whole URL too) sealed. */
export class AlertTargetRepository implements AlertTargetStore {
  constructor(
    private readonly pool: Pool,
    private readonly box: SecretBox,
  ) {}

  async get(name: string): Promise<AlertTarget | null> {
    const result = await this.pool.query<TargetRow>(
      'SELECT name, type, settings, secrets, alert_kinds, replication_ids::text[] AS replication_ids FROM alert_targets WHERE name = $1',
      [name],
    );
    const row = result.rows[0];
    return row === undefined ? null : this.opened(row);
  }

  async put(target: AlertTarget, reopenHours: number): Promise<'created' | 'replaced'> {
    const { settings, secrets } = splitTarget(target.spec);
    const sealed = this.box.seal(JSON.stringify(secrets), alertTargetSecretsAt(target.name));
    const result = await this.pool.query<{ created: boolean }>(
      `WITH stored AS (
         INSERT INTO alert_targets (name, type, settings, secrets, alert_kinds, replication_ids)
         VALUES ($1, $2, $3, $4, $5, $6::uuid[])
         ON CONFLICT (name) DO UPDATE SET type = EXCLUDED.type, settings = EXCLUDED.settings, secrets = EXCLUDED.secrets,
           alert_kinds = EXCLUDED.alert_kinds, replication_ids = EXCLUDED.replication_ids, updated_at = now()
         RETURNING (xmax = 0) AS created
       ), reopened AS (
         UPDATE alert_deliveries SET state = 'Pending', next_attempt_at = now()
          WHERE target_name = $1 AND state = 'Failed' AND created_at > now() - make_interval(hours => $7)
       )
       SELECT created FROM stored`,
      [target.name, target.spec.type, settings, sealed, target.alertKinds, target.replicationIds, reopenHours],
    );
    return result.rows[0]?.created === true ? 'created' : 'replaced';
  }

  async delete(name: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM alert_targets WHERE name = $1', [name]);
    return (result.rowCount ?? 0) > 0;
  }

  async list(): Promise<AlertTargetListing[]> {
    const result = await this.pool.query<ListingRow>(
      `SELECT t.name, t.type, t.settings, t.alert_kinds, t.replication_ids::text[] AS replication_ids, t.created_at, t.updated_at,
              count(*) FILTER (WHERE d.state = 'Delivered')::int AS delivered,
              count(*) FILTER (WHERE d.state = 'Pending')::int AS pending,
              count(*) FILTER (WHERE d.state = 'Failed')::int AS failed,
              max(d.delivered_at) AS last_delivered_at,
              (array_agg(d.last_error ORDER BY d.last_error_at DESC) FILTER (WHERE d.last_error_at IS NOT NULL))[1] AS last_error,
              max(d.last_error_at) AS last_error_at
         FROM alert_targets t LEFT JOIN alert_deliveries d ON d.target_name = t.name
        GROUP BY t.name ORDER BY t.name`,
    );
    return result.rows.map((row) => ({
      name: row.name,
      type: row.type,
      settings: row.settings,
      alertKinds: row.alert_kinds,
      replicationIds: row.replication_ids,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      deliveries: {
        delivered: row.delivered,
        pending: row.pending,
        failed: row.failed,
        lastDeliveredAt: row.last_delivered_at?.toISOString() ?? null,
        lastError: row.last_error,
        lastErrorAt: row.last_error_at?.toISOString() ?? null,
      },
    }));
  }

  /** The target of a stored row, its secrets opened. */
  opened(row: Pick<TargetRow, 'name' | 'type' | 'settings' | 'secrets' | 'alert_kinds' | 'replication_ids'>): AlertTarget {
    const secrets = row.secrets === null ? {} : (JSON.parse(this.box.open(row.secrets, alertTargetSecretsAt(row.name))) as TargetSecrets);
    return { name: row.name, spec: joinTarget(row.type, row.settings, secrets), alertKinds: row.alert_kinds, replicationIds: row.replication_ids };
  }
}

interface TargetSecrets {
  url?: string;
  signingSecret?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  smtpUrl?: string;
}

function splitTarget(spec: AlertTargetSpec): { settings: PublicTargetSettings; secrets: TargetSecrets } {
  switch (spec.type) {
    case 'Webhook':
      return { settings: { endpoint: originOf(spec.url) }, secrets: { url: spec.url, signingSecret: spec.signingSecret } };
    case 'Sns':
      return {
        settings: { topicArn: spec.topicArn },
        secrets: { ...(spec.accessKeyId !== undefined && { accessKeyId: spec.accessKeyId }), ...(spec.secretAccessKey !== undefined && { secretAccessKey: spec.secretAccessKey }) },
      };
    case 'Email':
      return { settings: { smtpServer: hostOf(spec.smtpUrl), from: spec.from, to: spec.to }, secrets: { smtpUrl: spec.smtpUrl } };
  }
}

function joinTarget(type: AlertTargetType, settings: PublicTargetSettings, secrets: TargetSecrets): AlertTargetSpec {
  switch (type) {
    case 'Webhook':
      return { type, url: secrets.url ?? '', signingSecret: secrets.signingSecret ?? '' };
    case 'Sns':
      return {
        type,
        topicArn: settings.topicArn ?? '',
        ...(secrets.accessKeyId !== undefined && { accessKeyId: secrets.accessKeyId }),
        ...(secrets.secretAccessKey !== undefined && { secretAccessKey: secrets.secretAccessKey }),
      };
    case 'Email':
      return { type, smtpUrl: secrets.smtpUrl ?? '', from: settings.from ?? '', to: settings.to ?? [] };
  }
}

/** Scheme and host of a URL: its path and query may be a secret (a Slack hook's path is). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** host:port of an SMTP URL, without its credentials. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
