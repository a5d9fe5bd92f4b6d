import type { Pool } from 'pg';
import type { SecretBox } from '@svc/crypto';
import { ERROR_DETAILS_PERMISSION } from '@svc/contracts';
import { accessKeyPreviousSecretAt, accessKeySecretAt } from './secret-locations';
import { inTransaction } from './control-database';

/** Which replications a key acts on: those it created, or every one (and the service-wide operations). */
export type ReplicationScope = 'Own' | 'All';

export interface NewAccessKey {
  accessKeyId: string;
  secretKey: string;
  /** Operation names, or `*` for all. */
  allowedOperations: string[];
  replicationScope: ReplicationScope;
  description: string;
  /** The key that created it over the API; null for keys an operator made on the bus. */
  createdBy?: string | null;
  expiresAt?: Date | null;
}

export interface AccessKeySecret {
  secretKey: string;
  allowedOperations: string[];
  replicationScope: ReplicationScope;
  /** The secret a rotation replaced, while its overlap lasts: it still signs. */
  previousSecretKey?: string;
}

/** A key as operators see it: never a secret. */
export interface AccessKeyListing {
  accessKeyId: string;
  allowedOperations: string[];
  replicationScope: ReplicationScope;
  description: string;
  bootstrap: boolean;
  disabled: boolean;
  createdAt: Date;
  createdBy: string | null;
  expiresAt: Date | null;
  /** Until when the secret a rotation replaced still signs; null when there is none. */
  previousSecretValidUntil: Date | null;
}

/** A key that signs: neither disabled nor past its expiry. */
const USABLE = 'NOT disabled AND (expires_at IS NULL OR expires_at > now())';

/** What the lifecycle does to a key other than rotating it. */
export type AccessKeyChange = { kind: 'status'; disabled: boolean } | { kind: 'expiry'; expiresAt: Date | null } | { kind: 'delete' };

/**
 * `keepAnAllKey`: refuse a change that disables, deletes or sets an expiry on the last usable key of scope All
 * (the signed API's rule, so that keys can always be managed by someone; an operator on the bus is not held to it).
 */
export type AccessKeyChangeOutcome = 'changed' | 'missing' | 'lastAllKey';

export interface AccessKeyStore {
  /**
   * Creates or replaces the key configured at boot (SVC_BOOTSTRAP_*), allowed every operation, and deletes
   * an earlier bootstrap key of another id (keys made by `svc keys create` stay).
   */
  upsertBootstrap(accessKeyId: string, secretKey: string): Promise<void>;
  /** false when the id is already taken. */
  create(key: NewAccessKey): Promise<boolean>;
  find(accessKeyId: string): Promise<AccessKeySecret | null>;
  /** The replications the key may act on; null for a key that does not exist (any more), is disabled or expired. */
  scopeOf(accessKeyId: string): Promise<ReplicationScope | null>;
  /** Whether a usable key is allowed ERROR_DETAILS_PERMISSION (or `*`): it may read what servers said of failures. */
  mayReadErrorDetails(accessKeyId: string): Promise<boolean>;
  list(): Promise<AccessKeyListing[]>;
  /** One key as list() shows it; null when no such key exists. */
  get(accessKeyId: string): Promise<AccessKeyListing | null>;
  change(accessKeyId: string, change: AccessKeyChange, options: { keepAnAllKey: boolean }): Promise<AccessKeyChangeOutcome>;
  /** A new secret; the current one keeps signing until `previousValidUntil`. false when no such key exists. */
  rotate(accessKeyId: string, newSecretKey: string, previousValidUntil: Date): Promise<boolean>;
}

const UNIQUE_VIOLATION = '23505';
export const BOOTSTRAP_KEY_DESCRIPTION = 'bootstrap key from SVC_BOOTSTRAP_ACCESS_KEY_ID';

export class AccessKeyRepository implements AccessKeyStore {
  constructor(
    private readonly pool: Pool,
    private readonly box: SecretBox,
  ) {}

  async upsertBootstrap(accessKeyId: string, secretKey: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM access_keys WHERE bootstrap AND access_key_id <> $1', [accessKeyId]);
      await client.query(
        `INSERT INTO access_keys (access_key_id, secret, allowed_operations, replication_scope, description, bootstrap) VALUES ($1, $2, $3, 'All', $4, true)
         ON CONFLICT (access_key_id) DO UPDATE SET secret = EXCLUDED.secret, allowed_operations = EXCLUDED.allowed_operations, replication_scope = 'All', bootstrap = true`,
        [accessKeyId, this.box.seal(secretKey, accessKeySecretAt(accessKeyId)), ['*'], BOOTSTRAP_KEY_DESCRIPTION],
      );
    });
  }

  async create(key: NewAccessKey): Promise<boolean> {
    try {
      await this.pool.query(
        `INSERT INTO access_keys (access_key_id, secret, allowed_operations, replication_scope, description, created_by_access_key_id, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          key.accessKeyId,
          this.box.seal(key.secretKey, accessKeySecretAt(key.accessKeyId)),
          key.allowedOperations,
          key.replicationScope,
          key.description,
          key.createdBy ?? null,
          key.expiresAt ?? null,
        ],
      );
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  async find(accessKeyId: string): Promise<AccessKeySecret | null> {
    const result = await this.pool.query<{ secret: Buffer; allowed_operations: string[]; replication_scope: ReplicationScope; previous_secret: Buffer | null }>(
      `SELECT secret, allowed_operations, replication_scope,
              CASE WHEN previous_valid_until > now() THEN previous_secret END AS previous_secret
         FROM access_keys WHERE access_key_id = $1 AND ${USABLE}`,
      [accessKeyId],
    );
    const row = result.rows[0];
    if (!row) return null;
    return {
      secretKey: this.box.open(row.secret, accessKeySecretAt(accessKeyId)),
      allowedOperations: row.allowed_operations,
      replicationScope: row.replication_scope,
      ...(row.previous_secret !== null && { previousSecretKey: this.box.open(row.previous_secret, accessKeyPreviousSecretAt(accessKeyId)) }),
    };
  }

  async scopeOf(accessKeyId: string): Promise<ReplicationScope | null> {
    const result = await this.pool.query<{ replication_scope: ReplicationScope }>(`SELECT replication_scope FROM access_keys WHERE access_key_id = $1 AND ${USABLE}`, [
      accessKeyId,
    ]);
    return result.rows[0]?.replication_scope ?? null;
  }

  async mayReadErrorDetails(accessKeyId: string): Promise<boolean> {
    const result = await this.pool.query(
      `SELECT 1 FROM access_keys WHERE access_key_id = $1 AND ${USABLE} AND ('*' = ANY (allowed_operations) OR $2 = ANY (allowed_operations))`,
      [accessKeyId, ERROR_DETAILS_PERMISSION],
    );
    return result.rowCount === 1;
  }

  async list(): Promise<AccessKeyListing[]> {
    return (await this.pool.query<ListingRow>(`${LISTING_SELECT} ORDER BY created_at, access_key_id`)).rows.map(listingOf);
  }

  async get(accessKeyId: string): Promise<AccessKeyListing | null> {
    const row = (await this.pool.query<ListingRow>(`${LISTING_SELECT} WHERE access_key_id = $1`, [accessKeyId])).rows[0];
    return row ? listingOf(row) : null;
  }

  async change(accessKeyId: string, change: AccessKeyChange, options: { keepAnAllKey: boolean }): Promise<AccessKeyChangeOutcome> {
    return inTransaction(this.pool, async (client) => {
      if (options.keepAnAllKey && takesOut(change)) {
        // Locking every usable All key serialises two such changes: the second sees the first one's result.
        const allKeys = await client.query<{ access_key_id: string }>(`SELECT access_key_id FROM access_keys WHERE replication_scope = 'All' AND ${USABLE} FOR UPDATE`);
        const ids = allKeys.rows.map((row) => row.access_key_id);
        if (ids.length === 1 && ids[0] === accessKeyId) return 'lastAllKey';
      }
      const result =
        change.kind === 'delete'
          ? await client.query('DELETE FROM access_keys WHERE access_key_id = $1', [accessKeyId])
          : change.kind === 'status'
            ? await client.query('UPDATE access_keys SET disabled = $2 WHERE access_key_id = $1', [accessKeyId, change.disabled])
            : await client.query('UPDATE access_keys SET expires_at = $2 WHERE access_key_id = $1', [accessKeyId, change.expiresAt]);
      return result.rowCount === 1 ? 'changed' : 'missing';
    });
  }

  async rotate(accessKeyId: string, newSecretKey: string, previousValidUntil: Date): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const current = await client.query<{ secret: Buffer }>('SELECT secret FROM access_keys WHERE access_key_id = $1 FOR UPDATE', [accessKeyId]);
      const row = current.rows[0];
      if (!row) return false;
      const previous = this.box.open(row.secret, accessKeySecretAt(accessKeyId));
      await client.query('UPDATE access_keys SET secret = $2, previous_secret = $3, previous_valid_until = $4 WHERE access_key_id = $1', [
        accessKeyId,
        this.box.seal(newSecretKey, accessKeySecretAt(accessKeyId)),
        this.box.seal(previous, accessKeyPreviousSecretAt(accessKeyId)),
        previousValidUntil,
      ]);
      return true;
    });
  }
}

/** Whether the change stops the key signing, now or at its expiry (enabling a key or clearing an expiry does not). */
export function takesOut(change: AccessKeyChange): boolean {
  return change.kind === 'delete' || (change.kind === 'status' && change.disabled) || (change.kind === 'expiry' && change.expiresAt !== null);
}

interface ListingRow {
  access_key_id: string;
  allowed_operations: string[];
  replication_scope: ReplicationScope;
  description: string;
  bootstrap: boolean;
  disabled: boolean;
  created_at: Date;
  created_by_access_key_id: string | null;
  expires_at: Date | null;
  previous_valid_until: Date | null;
}

const LISTING_SELECT = `SELECT access_key_id, allowed_operations, replication_scope, description, bootstrap, disabled, created_at, created_by_access_key_id, expires_at,
       CASE WHEN previous_valid_until > now() THEN previous_valid_until END AS previous_valid_until
  FROM access_keys`;

function listingOf(row: ListingRow): AccessKeyListing {
  return {
    accessKeyId: row.access_key_id,
    allowedOperations: row.allowed_operations,
    replicationScope: row.replication_scope,
    description: row.description,
    bootstrap: row.bootstrap,
    disabled: row.disabled,
    createdAt: row.created_at,
    createdBy: row.created_by_access_key_id,
    expiresAt: row.expires_at,
    previousSecretValidUntil: row.previous_valid_until,
  };
}
