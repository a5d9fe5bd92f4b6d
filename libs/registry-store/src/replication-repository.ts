import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { ReplicationConfig, ReplicationStatus, ValidationSchedule } from '@svc/contracts';
import type { SecretBox } from '@svc/crypto';
import { inCanonicalOrder } from './canonical-order';
import { configLeaves } from './config-paths';
import { joinSecrets, maskedValuesAt, splitSecrets, type PublicConfig } from './secret-fields';
import { isUuid } from '@svc/contracts';
import { replicationSecretsAt } from './secret-locations';
import { inTransaction } from './control-database';
import { storedErrorDetail } from './error-detail';

export interface StoredReplication {
  replicationId: string;
  /** The replication's own state; the service-wide stop flag is not folded in. */
  status: ReplicationStatus;
  /** Full configuration, secrets included (decrypted). */
  config: ReplicationConfig;
  /** Configuration version, 1 at creation, +1 per stored change. */
  version: number;
  lastError: string | null;
  /** What a server said of the last error (redacted of credentials, bounded): only for keys allowed to see it. */
  lastErrorDetail: string | null;
  /** The access key that created it; null only for a replication created before owners were recorded and never claimed. */
  ownerAccessKeyId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns List needs, read without opening any secret. */
export interface ReplicationListing {
  replicationId: string;
  replicationName: string;
  status: ReplicationStatus;
  dataReplication: boolean;
}

/** Who made a change: recorded in the history. */
/** A replication that validates itself on a schedule (ValidationSchedule), as the scheduler reads it. */
export interface ScheduledValidationListing {
  replicationId: string;
  status: ReplicationStatus;
  dataReplication: boolean;
  schedule: ValidationSchedule;
}

export interface ChangeAuthor {
  requestId: string;
  accessKeyId: string;
}

export interface HistoryEntry {
  version: number;
  changedAt: Date;
  requestId: string;
  accessKeyId: string;
  changedFields: string[];
  /** New values of the changed fields, secrets masked; null for a field the change removed. */
  maskedValues: Record<string, unknown>;
}

export interface ReplicationChange {
  config: ReplicationConfig;
  status: ReplicationStatus;
  lastError: string | null;
  /** Dotted paths that differ from the stored configuration (see changedConfigPaths). */
  changedFields: string[];
}

export interface ReplicationStore {
  insert(input: { status: ReplicationStatus; config: ReplicationConfig }, author: ChangeAuthor): Promise<StoredReplication>;
  get(replicationId: string): Promise<StoredReplication | null>;
  /** Every replication, or those `ownedBy` one access key. */
  list(ownedBy?: string): Promise<ReplicationListing[]>;
  /** The replications with a validation schedule whose interval is not 0. */
  withValidationSchedule(): Promise<ScheduledValidationListing[]>;
  /** The owner's access key id; undefined when the replication does not exist, null when it has no recorded owner. */
  ownerOf(replicationId: string): Promise<string | null | undefined>;
  /** Stores a new configuration version; null when the stored version is no longer `expectedVersion` (or the row is gone). */
  update(replicationId: string, expectedVersion: number, change: ReplicationChange, author: ChangeAuthor): Promise<StoredReplication | null>;
  /** Changes status and last error (and its detail: what a server said) without touching the configuration; false when the replication does not exist. */
  setStatus(replicationId: string, status: ReplicationStatus, lastError: string | null, lastErrorDetail?: string | null): Promise<boolean>;
  /** Removes the replication and, by cascade, all its state; false when it did not exist. */
  delete(replicationId: string): Promise<boolean>;
  history(replicationId: string): Promise<HistoryEntry[]>;
}

interface ReplicationRow {
  id: string;
  status: ReplicationStatus;
  config: PublicConfig;
  secrets: Buffer;
  config_version: number;
  last_error: string | null;
  last_error_detail: string | null;
  owner_access_key_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const ROW_COLUMNS = 'id, status, config, secrets, config_version, last_error, last_error_detail, owner_access_key_id, created_at, updated_at';

export class ReplicationRepository implements ReplicationStore {
  constructor(
    private readonly pool: Pool,
    private readonly box: SecretBox,
  ) {}

  async insert(input: { status: ReplicationStatus; config: ReplicationConfig }, author: ChangeAuthor): Promise<StoredReplication> {
    const { publicConfig, secretsJson } = splitSecrets(input.config);
    // The id is chosen here: the sealed secrets are bound to it.
    const replicationId = randomUUID();
    return inTransaction(this.pool, async (client) => {
      const inserted = await client.query<ReplicationRow>(
        `INSERT INTO replications (id, name, status, config, secrets, owner_access_key_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ROW_COLUMNS}`,
        [replicationId, input.config.replicationName, input.status, publicConfig, this.box.seal(secretsJson, replicationSecretsAt(replicationId)), author.accessKeyId],
      );
      const row = firstRow(inserted.rows);
      await this.recordHistory(client, row.id, row.config_version, [...configLeaves(input.config).keys()], input.config, author);
      return this.toStored(row);
    });
  }

  async get(replicationId: string): Promise<StoredReplication | null> {
    if (!isUuid(replicationId)) return null;
    const result = await this.pool.query<ReplicationRow>(`SELECT ${ROW_COLUMNS} FROM replications WHERE id = $1`, [replicationId]);
    const row = result.rows[0];
    return row ? this.toStored(row) : null;
  }

  async list(ownedBy?: string): Promise<ReplicationListing[]> {
    const result = await this.pool.query<{ id: string; name: string; status: ReplicationStatus; data_replication: boolean | null }>(
      `SELECT id, name, status, (config->>'dataReplication')::boolean AS data_replication
         FROM replications WHERE $1::text IS NULL OR owner_access_key_id = $1 ORDER BY created_at, id`,
      [ownedBy ?? null],
    );
    return result.rows.map((row) => ({
      replicationId: row.id,
      replicationName: row.name,
      status: row.status,
      dataReplication: row.data_replication !== false,
    }));
  }

  async withValidationSchedule(): Promise<ScheduledValidationListing[]> {
    const result = await this.pool.query<{ id: string; status: ReplicationStatus; data_replication: boolean | null; schedule: ValidationSchedule }>(
      `SELECT id, status, (config->>'dataReplication')::boolean AS data_replication, config->'validationSchedule' AS schedule
         FROM replications WHERE (config->'validationSchedule'->>'repeatIntervalInMinutes')::bigint > 0 ORDER BY created_at, id`,
    );
    return result.rows.map((row) => ({ replicationId: row.id, status: row.status, dataReplication: row.data_replication !== false, schedule: row.schedule }));
  }

  async update(
    replicationId: string,
    expectedVersion: number,
    change: ReplicationChange,
    author: ChangeAuthor,
  ): Promise<StoredReplication | null> {
    if (!isUuid(replicationId)) return null;
    const { publicConfig, secretsJson } = splitSecrets(change.config);
    return inTransaction(this.pool, async (client) => {
      const updated = await client.query<ReplicationRow>(
        `UPDATE replications
            SET name = $3, status = $4, config = $5, secrets = $6, last_error = $7,
                -- The detail belongs to the error it explains: kept with it, dropped when the error changes.
                last_error_detail = CASE WHEN $7::text IS NOT DISTINCT FROM last_error THEN last_error_detail END,
                config_version = config_version + 1, updated_at = now()
          WHERE id = $1 AND config_version = $2
          RETURNING ${ROW_COLUMNS}`,
        [replicationId, expectedVersion, change.config.replicationName, change.status, publicConfig, this.box.seal(secretsJson, replicationSecretsAt(replicationId.toLowerCase())), change.lastError],
      );
      const row = updated.rows[0];
      if (!row) return null;
      await this.recordHistory(client, row.id, row.config_version, change.changedFields, change.config, author);
      return this.toStored(row);
    });
  }

  async ownerOf(replicationId: string): Promise<string | null | undefined> {
    if (!isUuid(replicationId)) return undefined;
    const result = await this.pool.query<{ owner_access_key_id: string | null }>('SELECT owner_access_key_id FROM replications WHERE id = $1', [replicationId]);
    const row = result.rows[0];
    return row === undefined ? undefined : row.owner_access_key_id;
  }

  async setStatus(replicationId: string, status: ReplicationStatus, lastError: string | null, lastErrorDetail: string | null = null): Promise<boolean> {
    if (!isUuid(replicationId)) return false;
    const result = await this.pool.query('UPDATE replications SET status = $2, last_error = $3, last_error_detail = $4, updated_at = now() WHERE id = $1', [
      replicationId,
      status,
      lastError,
      storedErrorDetail(lastErrorDetail),
    ]);
    return result.rowCount === 1;
  }

  async delete(replicationId: string): Promise<boolean> {
    if (!isUuid(replicationId)) return false;
    const result = await this.pool.query('DELETE FROM replications WHERE id = $1', [replicationId]);
    return result.rowCount === 1;
  }

  async history(replicationId: string): Promise<HistoryEntry[]> {
    if (!isUuid(replicationId)) return [];
    const result = await this.pool.query<{
      version: number;
      changed_at: Date;
      request_id: string;
      access_key_id: string;
      changed_fields: string[];
      masked_values: Record<string, unknown>;
    }>(
      `SELECT version, changed_at, request_id, access_key_id, changed_fields, masked_values
         FROM replication_history WHERE replication_id = $1 ORDER BY version`,
      [replicationId],
    );
    return result.rows.map((row) => ({
      version: row.version,
      changedAt: row.changed_at,
      requestId: row.request_id,
      accessKeyId: row.access_key_id,
      changedFields: row.changed_fields,
      maskedValues: row.masked_values,
    }));
  }

  private async recordHistory(
    client: PoolClient,
    replicationId: string,
    version: number,
    changedFields: string[],
    config: ReplicationConfig,
    author: ChangeAuthor,
  ): Promise<void> {
    await client.query(
      `INSERT INTO replication_history (replication_id, version, request_id, access_key_id, changed_fields, masked_values)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [replicationId, version, author.requestId, author.accessKeyId, changedFields, maskedValuesAt(config, changedFields)],
    );
  }

  private toStored(row: ReplicationRow): StoredReplication {
    return {
      replicationId: row.id,
      status: row.status,
      config: inCanonicalOrder(joinSecrets(row.config, this.box.open(row.secrets, replicationSecretsAt(row.id)))),
      version: row.config_version,
      lastError: row.last_error,
      lastErrorDetail: row.last_error_detail,
      ownerAccessKeyId: row.owner_access_key_id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}

function firstRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('statement returned no row');
  return row;
}
