import type { AccessKeyListing } from '@svc/registry-store';
import { keyStatusOf } from './access-keys.service';

/**
 * Why a key that signed a call correctly may not act: disabled or expired (itself, or a key it was created under), or
 * deleted. Said only after its signature held, so only its holder learns it.
 */
export function stoppedKeyMessage(accessKeyId: string, stopped: 'Disabled' | 'Expired' | null): string {
  switch (stopped) {
    case 'Disabled':
      return `access key ${accessKeyId} is disabled (itself, or the key it was created under): a key allowed UpdateAccessKey sets its Status to Active again`;
    case 'Expired':
      return `access key ${accessKeyId} has expired (itself, or the key it was created under): a key allowed UpdateAccessKey gives it a later ExpiresAt`;
    case null:
      return `access key ${accessKeyId} does not exist (any more)`;
  }
}

/** stoppedKeyMessage for a key as the store lists it (null: gone); undefined while it is active. */
export function refusalOfKey(accessKeyId: string, key: AccessKeyListing | null): string | undefined {
  if (key === null) return stoppedKeyMessage(accessKeyId, null);
  const status = keyStatusOf(key);
  return status === 'Active' ? undefined : stoppedKeyMessage(accessKeyId, status);
}
