import { SECRET_MASK } from '@svc/contracts';

const URL_FORM = /^(\s*[a-z][a-z0-9+.-]*:\/\/)([\s\S]*)$/i;
const URL_SECRET_PARAM = /([?&](?:password|pwd|sslpassword)=)[^&#]*/gi;
const ADO_SECRET_KEYS = new Set(['password', 'pwd']);

/**
 * The connection string with its password replaced by SECRET_MASK and everything else kept, so that
 * Describe still shows user, host and database: `postgres://u:********@h/db`, `...;Password=********;...`.
 * When the text cannot be read reliably the masking errs towards hiding more.
 */
export function maskConnectionString(text: string): string {
  const url = URL_FORM.exec(text);
  return url ? maskUrl(url[1] ?? '', url[2] ?? '') : maskAdo(text);
}

function maskUrl(scheme: string, rest: string): string {
  // As in WHATWG URL parsing (which the drivers use): the authority ends at the first '/', '?' or '#',
  // and the user info ends at the authority's last '@'.
  const authorityEnd = rest.search(/[/?#]/);
  let userInfoEnd = (authorityEnd === -1 ? rest : rest.slice(0, authorityEnd)).lastIndexOf('@');
  // A password with an unencoded '/', '?' or '#' would end the authority early; hide through the last '@'.
  if (userInfoEnd === -1 && authorityEnd !== -1 && rest.slice(0, authorityEnd).includes(':')) {
    userInfoEnd = rest.lastIndexOf('@');
  }
  let masked = rest;
  if (userInfoEnd !== -1) {
    const userInfo = rest.slice(0, userInfoEnd);
    const colon = userInfo.indexOf(':');
    const hiddenUserInfo = colon === -1 ? userInfo : `${userInfo.slice(0, colon + 1)}${SECRET_MASK}`;
    masked = `${hiddenUserInfo}${rest.slice(userInfoEnd)}`;
  }
  return scheme + masked.replace(URL_SECRET_PARAM, `$1${SECRET_MASK}`);
}

/** ADO.NET `key=value;` pairs; values may be quoted with `"` or `'`, a doubled quote being a literal one. */
function maskAdo(text: string): string {
  let out = '';
  let at = 0;
  while (at < text.length) {
    const equals = text.indexOf('=', at);
    const semicolon = text.indexOf(';', at);
    if (equals === -1 || (semicolon !== -1 && semicolon < equals)) {
      // A segment without a key: keep it as it is.
      const end = semicolon === -1 ? text.length : semicolon + 1;
      out += text.slice(at, end);
      at = end;
      continue;
    }
    const key = text.slice(at, equals);
    const valueEnd = adoValueEnd(text, equals + 1);
    const isSecret = ADO_SECRET_KEYS.has(key.trim().replace(/\s+/g, ' ').toLowerCase());
    if (isSecret && valueEnd === null) return `${out}${key}=${SECRET_MASK}`;
    const end = valueEnd ?? text.length;
    out += isSecret ? `${key}=${SECRET_MASK}` : text.slice(at, end);
    at = end;
  }
  return out;
}

/** Index just past a value (at its terminating ';' or the end), or null for an unterminated quote. */
function adoValueEnd(text: string, start: number): number | null {
  let at = start;
  while (at < text.length && /\s/.test(text[at] ?? '')) at += 1;
  const quote = text[at];
  if (quote === '"' || quote === "'") {
    at += 1;
    while (at < text.length) {
      if (text[at] === quote) {
        if (text[at + 1] === quote) {
          at += 2;
          continue;
        }
        const semicolon = text.indexOf(';', at + 1);
        return semicolon === -1 ? text.length : semicolon;
      }
      at += 1;
    }
    return null;
  }
  const semicolon = text.indexOf(';', at);
  return semicolon === -1 ? text.length : semicolon;
}
