import type { Pool } from 'pg';
import type { SecretBox } from '@svc/crypto';
import { accessKeySecretAt } from './secret-locations';
import { inTransaction } from './transaction';

export interface NewAccessKey {
  accessKeyId: string;
  secretKey: string;
  /** Operation names, or `*` for all. */
  allowedOperations: string[];
  description: string;
}

export interface AccessKeySecret {
  secretKey: string;
  allowedOperations: string[];
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
        `INSERT INTO access_keys (access_key_id, secret, allowed_operations, description, bootstrap) VALUES ($1, $2, $3, $4, true)
         ON CONFLICT (access_key_id) DO UPDATE SET secret = EXCLUDED.secret, allowed_operations = EXCLUDED.allowed_operations, bootstrap = true`,
        [accessKeyId, this.box.seal(secretKey, accessKeySecretAt(accessKeyId)), ['*'], BOOTSTRAP_KEY_DESCRIPTION],
      );
    });
  }

  async create(key: NewAccessKey): Promise<boolean> {
    try {
      await this.pool.query(
        'INSERT INTO access_keys (access_key_id, secret, allowed_operations, description) VALUES ($1, $2, $3, $4)',
        [key.accessKeyId, this.box.seal(key.secretKey, accessKeySecretAt(key.accessKeyId)), key.allowedOperations, key.description],
      );
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  async find(accessKeyId: string): Promise<AccessKeySecret | null> {
    const result = await this.pool.query<{ secret: Buffer; allowed_operations: string[] }>(
      'SELECT secret, allowed_operations FROM access_keys WHERE access_key_id = $1',
      [accessKeyId],
    );
    const row = result.rows[0];
    return row ? { secretKey: this.box.open(row.secret, accessKeySecretAt(accessKeyId)), allowedOperations: row.allowed_operations } : null;
  }
}
