/**
 * A URL as error messages may show it: scheme, host and port; never user info, path, query or fragment — a hook's path
 * is often its secret (Slack's, Teams', many others'), and these messages are stored and shown by Describe.
 */
export function urlForMessages(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : '/…'}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** `text` with every occurrence of each secret (of at least 3 characters) replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return secrets.filter((secret) => secret.length >= 3).reduce((redacted, secret) => redacted.split(secret).join('***'), text);
}
