// Tested against the key without separators, so connection_string and private-key match too.
const SECRET_KEY_PATTERN = /pass(word)?|pwd|secret|credential|connectionstring|accesskey|apikey|privatekey|token|authorization|masterkey|signingkey/i;
// user:password@ (or :password@) in URLs, Password=/Pwd= pairs in ADO connection strings, and
// "password":"…" members of JSON text.
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@\s]*@/gi;
const ADO_PASSWORD = /((?:password|pwd)\s*=\s*)("[^"]*"|'[^']*'|[^;]*)/gi;
const JSON_MEMBER = /("([^"\\]*)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;

function isSecretKey(key: string): boolean {
  return SECRET_KEY_PATTERN.test(key.replace(/[-_\s]/g, ''));
}

export const REDACTED = '[redacted]';

/** Removes credentials that may be embedded in free text (error messages from drivers, for instance). */
export function redactText(text: string): string {
  return text
    .replace(URL_CREDENTIALS, `$1:${REDACTED}@`)
    .replace(ADO_PASSWORD, `$1${REDACTED}`)
    .replace(JSON_MEMBER, (member: string, keyAndColon: string, key: string) => (isSecretKey(key) ? `${keyAndColon}"${REDACTED}"` : member));
}

/** Deep copy of `value` with secret-named fields replaced and credentials in strings removed. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[depth]';
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Error) return { name: value.name, message: redactText(value.message) };
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, isSecretKey(key) ? REDACTED : redact(item, depth + 1)]),
    );
  }
  return value;
}
