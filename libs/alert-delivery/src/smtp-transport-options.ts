import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { SMTPTransportOptions } from 'nodemailer';
import { isLoopbackHost } from '@svc/config';

export interface SmtpConnectionSettings {
  timeoutMs: number;
  /** PEM of a private CA that SMTP servers' certificates may also chain to (beside Node's public roots). */
  trustedCaPem?: string;
}

export interface ParsedSmtpUrl {
  options: SMTPTransportOptions;
  /** smtp://host:port or smtps://host:port: how error messages name the relay. */
  shownUrl: string;
  /** The password in the forms a message could show it (as given, URL-encoded, in AUTH PLAIN/LOGIN base64). */
  secrets: string[];
}

/**
 * The nodemailer transport options of `smtp://user:pass@host:587` (STARTTLS required unless the host is loopback) or
 * `smtps://user:pass@host:465` (implicit TLS, RFC 8314). { invalid } with the reason when the URL is not one of these.
 */
export function parseSmtpUrl(smtpUrl: string, settings: SmtpConnectionSettings): ParsedSmtpUrl | { invalid: string } {
  if (!URL.canParse(smtpUrl)) return { invalid: 'the SMTP URL cannot be parsed' };
  const url = new URL(smtpUrl);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return { invalid: `the SMTP URL has the scheme ${url.protocol} (smtp: or smtps: expected)` };
  if (url.hostname === '') return { invalid: 'the SMTP URL has no host' };
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  const timeoutMs = settings.timeoutMs;
  const options: SMTPTransportOptions = {
    host,
    port,
    secure,
    requireTLS: !secure && !isLoopbackHost(host),
    ...(user !== '' && { auth: { user, pass } }),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    tls: {
      minVersion: 'TLSv1.2',
      ...(isIP(host) === 0 && { servername: host }),
      ...(settings.trustedCaPem !== undefined && { ca: [...rootCertificates, settings.trustedCaPem] }),
    },
    // The message is built from the notice alone: nodemailer must never read a file or fetch a URL for it.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  const secrets =
    pass === ''
      ? []
      : [pass, url.password, Buffer.from(pass).toString('base64'), Buffer.from(`\u0000${user}\u0000${pass}`).toString('base64')];
  return { options, shownUrl: `${url.protocol}//${url.host}`, secrets };
}
