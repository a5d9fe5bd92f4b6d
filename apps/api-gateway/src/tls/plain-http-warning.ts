import { isLoopbackHost } from '@svc/config';

/**
 * The warning a gateway without TLS gives at start when it listens beyond loopback, or null on loopback:
 * every call's body, Create and Alter ones with database passwords and S3 keys, then crosses the network in clear.
 */
export function plainHttpWarning(host: string): string | null {
  if (isLoopbackHost(host)) return null;
  return (
    `the API is served over plain HTTP on ${host}, which other machines can reach: request bodies, which carry database passwords ` +
    'and S3 keys, travel unencrypted. Set TLS_CERT_FILE and TLS_KEY_FILE to serve HTTPS, or HOST=127.0.0.1 to stay on this machine'
  );
}
