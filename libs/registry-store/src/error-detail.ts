import { FAILURE_DETAIL_MAX_LENGTH } from '@svc/contracts';
import { redactText } from '@svc/logging';

/**
 * A failure's detail as it is stored: redacted of credentials again (a worker redacts it, but an older one may
 * not have) and bounded, so that a chatty server cannot fill the registry. Null stays null.
 */
export function storedErrorDetail(detail: string | null | undefined): string | null {
  if (detail === null || detail === undefined || detail === '') return null;
  return redactText(detail).slice(0, FAILURE_DETAIL_MAX_LENGTH);
}
