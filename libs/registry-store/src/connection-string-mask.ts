import { SECRET_MASK } from '@svc/contracts';
import { redactText } from '@svc/logging';

/**
 * The connection string with its password replaced by SECRET_MASK and everything else kept, so that
 * Describe still shows user, host and database: `postgres://u:********@h/db`, `...;Password=********;...`.
 * The same reader as the logs' redaction (libs/logging), so both hide what the engines' parsers take as
 * the password; when the text cannot be read reliably it errs towards hiding more.
 */
export function maskConnectionString(text: string): string {
  return redactText(text, SECRET_MASK);
}
