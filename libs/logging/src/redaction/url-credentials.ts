import { firstIndexOf } from './quoted-value';
import type { Span } from './span';

/** Schemes where a user name alone is a secret: `nats://<token>@host`. */
const TOKEN_SCHEMES = new Set(['nats', 'tls']);

/**
 * The password of the URL whose authority starts at `start` (just past `scheme://`), read as the WHATWG URL
 * parser that the drivers use reads it: the authority ends at the first `/`, `?` or `#`, the user info at
 * the authority's last `@`, and the password runs from the user info's first `:`. So `u:p@ss@h` has the
 * password `p@ss` and `u:a b@h` the password `a b`. In free text the URL's own end is unknown, so everything
 * up to that `/`, `?` or `#` counts as authority: that may hide prose after a URL, never a password.
 *
 * A password with a raw `/`, `?` or `#` (which the parser refuses) ends the authority early: when the authority
 * has a `:` not followed by a port, or a later `@` comes before any `?` or `#`, everything through the last `@`
 * of the line is hidden, and the scan goes on inside it (a query secret may hold that `@`).
 */
export function urlCredentialSpan(text: string, scheme: string, start: number): { span?: Span; resume: number } {
  const authorityEnd = firstIndexOf(text, '/?#', start);
  const userInfoEnd = text.lastIndexOf('@', authorityEnd - 1);
  if (userInfoEnd >= start) return userInfoSpan(text, scheme, start, userInfoEnd);
  const colon = text.indexOf(':', start);
  const lastAt = text.lastIndexOf('@', firstIndexOf(text, '\n', start) - 1);
  if (colon === -1 || colon >= authorityEnd || lastAt < authorityEnd) return { resume: start };
  const afterPort = /^\d*$/.test(text.slice(colon + 1, authorityEnd));
  const atBeforeQuery = lastAt < firstIndexOf(text, '?#', authorityEnd + 1);
  if (afterPort && !atBeforeQuery) return { resume: start };
  return { span: { start: colon + 1, end: lastAt }, resume: start };
}

function userInfoSpan(text: string, scheme: string, start: number, userInfoEnd: number): { span?: Span; resume: number } {
  const colon = text.indexOf(':', start);
  if (colon !== -1 && colon < userInfoEnd) return { span: { start: colon + 1, end: userInfoEnd }, resume: userInfoEnd + 1 };
  if (TOKEN_SCHEMES.has(scheme.toLowerCase())) return { span: { start, end: userInfoEnd }, resume: userInfoEnd + 1 };
  return { resume: userInfoEnd + 1 };
}
