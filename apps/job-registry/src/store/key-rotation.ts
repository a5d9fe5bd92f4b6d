import { Pool } from 'pg';
import { SecretBox } from '@svc/crypto';
import type { KeyRotationConfig } from '../config/master-keys';
import { resealSecrets } from './sealed-secrets';

/**
 * Opens every sealed value of the control database with the configured keys and seals again, under
 * SVC_MASTER_KEY, each one in an older format or under a previous key: one transaction. Returns what to tell
 * the operator.
 */
export async function rotateMasterKey(config: KeyRotationConfig): Promise<string[]> {
  const box = new SecretBox(config.masterKeys.current, config.masterKeys.previous);
  const pool = new Pool({ connectionString: config.databaseUrl, max: 1 });
  try {
    const report = await resealSecrets(pool, box, { openAll: true });
    return [
      ...report.map((column) => `${column.column}: ${column.opened} value(s) opened, ${column.resealed} sealed again`),
      `Every sealed value is now under SVC_MASTER_KEY (master key id ${box.currentKeyId}). Once every registry instance runs with this SVC_MASTER_KEY, remove SVC_MASTER_KEY_PREVIOUS.`,
    ];
  } finally {
    await pool.end();
  }
}
