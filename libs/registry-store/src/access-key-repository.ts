import type { Pool } from 'pg';
import type { SecretBox } from '@svc/crypto';
import { accessKeySecretAt } from './secret-locations';
import { inTransaction } from './transaction';

/** Which replications a key acts on: those it created, or every one (and the service-wide operations). */
export type ReplicationScope = 'Own' | 'All';

export interface NewAccessKey {
  accessKeyId: string;
  secretKey: string;
  /** Operation names, or `*` for all. */
  allowedOperations: string[];
  replicationScope: ReplicationScope;
  description: string;
}

export interface AccessKeySecret {
  secretKey: string;
  allowedOperations: string[];
  replicationScope: ReplicationScope;
}

export interface AccessKeyStore {
  /**
   * Creates or replaces the key configured at boot (SVC_BOOTSTRAP_*), allowed every operation, and deletes
   * an earlier bootstrap key of another id (keys made by `svc keys create` stay).
   */
  upsertBootstrap(accessKeyId: string, secretKey: string): Promise<void>;
  /** false when the id is already taken. */
  create(key: NewAccessKey): Promise<boolean>;
  find(accessKeyId: string): Promise<AccessKeySecret | null>;
  /** The replications the key may act on; null for a key that does not exist (any more). */
  scopeOf(accessKeyId: string): Promise<ReplicationScope | null>;
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
        'INSERT INTO access_keys (access_key_id, secret, allowed_operations, replication_scope, description) VALUES ($1, $2, $3, $4, $5)',
        [key.accessKeyId, this.box.seal(key.secretKey, accessKeySecretAt(key.accessKeyId)), key.allowedOperations, key.replicationScope, key.description],
      );
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  async find(accessKeyId: string): Promise<AccessKeySecret | null> {
    const result = await this.pool.query<{ secret: Buffer; allowed_operations: string[]; replication_scope: ReplicationScope }>(
      'SELECT secret, allowed_operations, replication_scope FROM access_keys WHERE access_key_id = $1',
      [accessKeyId],
    );
    const row = result.rows[0];
    return row
      ? { secretKey: this.box.open(row.secret, accessKeySecretAt(accessKeyId)), allowedOperations: row.allowed_operations, replicationScope: row.replication_scope }
      : null;
  }

  async scopeOf(accessKeyId: string): Promise<ReplicationScope | null> {
    const result = await this.pool.query<{ replication_scope: ReplicationScope }>('SELECT replication_scope FROM access_keys WHERE access_key_id = $1', [accessKeyId]);
    return result.rows[0]?.replication_scope ?? null;
  }
}
