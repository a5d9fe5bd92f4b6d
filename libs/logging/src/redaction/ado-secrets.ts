import { readAdoPairs } from '../connection-strings/ado-connection-string';
import { isSecretName } from './secret-names';
import type { Span } from './span';

/**
 * The secret values of `text` read as a whole ADO.NET connection string, pair after pair with the reader the
 * SQL Server engine connects with. Reading pair after pair cannot be misled by a key-like text inside another
 * value, which a scan of free text can. Empty when the text is not such a string.
 */
export function adoSecretSpans(text: string): Span[] {
  const pairs = readAdoPairs(text) ?? [];
  return pairs.filter((pair) => isSecretName(pair.key)).map((pair) => ({ start: pair.valueStart, end: pair.valueEnd }));
}
