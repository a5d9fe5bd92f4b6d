import type { Pool } from 'pg';
import type { SecretBox } from '@svc/crypto';
import { ResealError, resealStoredSecrets, type ResealedColumn, type ResealOptions } from '@svc/registry-store';

/**
 * Seals again whatever is in the format before key ids or under a previous master key (registry-store's
 * resealStoredSecrets); a value no configured key opens stops the caller with the key ids to configure.
 */
export async function resealSecrets(pool: Pool, box: SecretBox, options: ResealOptions = {}): Promise<ResealedColumn[]> {
  try {
    return await resealStoredSecrets(pool, box, options);
  } catch (error) {
    if (error instanceof ResealError && error.missingKeyIds.length > 0) {
      throw new Error(
        `${error.message}\nmaster key id(s) ${error.missingKeyIds.join(', ')} not configured: give each such key in SVC_MASTER_KEY_PREVIOUS (comma-separated) until it is rotated out`,
      );
    }
    throw error;
  }
}
