import { isSecretName } from './redaction/secret-names';
import { secretSpans } from './redaction/secret-spans';
import { replaceSpans } from './redaction/span';

export const REDACTED = '[redacted]';

/**
 * `text` with every credential it may hold replaced by `mask`: passwords of URLs and connection strings of
 * every grammar the engines accept, secret-named JSON members and COPY credentials (redaction/secret-spans.ts).
 * The logger uses it with REDACTED; Describe masks stored connection strings with it (registry-store).
 */
export function redactText(text: string, mask: string = REDACTED): string {
  return replaceSpans(text, secretSpans(text), mask);
}

/** Deep copy of `value` with secret-named fields replaced and credentials in strings removed. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[depth]';
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Error) return { name: value.name, message: redactText(value.message) };
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, isSecretName(key) ? REDACTED : redact(item, depth + 1)]),
    );
  }
  return value;
}
