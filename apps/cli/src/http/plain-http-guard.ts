import { isLoopbackHost } from '@svc/config';
import { CliFailure, ExitCode } from '../exit-codes';
import { displayEndpoint } from './network-error';

/**
 * Every call `svc` makes is signed with a key derived from the secret, and Create and Alter bodies carry
 * database passwords and S3 keys: over plain HTTP they are readable by anyone on the path. Loopback never leaves
 * the machine, so `npm start`'s http://127.0.0.1:8080 stays allowed; anywhere else needs https:// or --insecure.
 * Throws before anything is sent.
 */
export function refusePlainHttpBeyondLoopback(endpoint: string, insecure: boolean): void {
  const url = new URL(endpoint);
  if (url.protocol !== 'http:' || insecure || isLoopbackHost(url.hostname)) return;
  throw new CliFailure(
    `refusing to send a signed request over plain HTTP to ${displayEndpoint(url)}: the request and its body (Create and Alter carry ` +
      'database passwords and S3 keys) would cross the network unencrypted. Use an https:// endpoint, or pass --insecure to send it anyway',
    ExitCode.Configuration,
  );
}
