import { ConnectionStringError } from './connection-string-error';
import { formatIpAddress, parseIpAddress, type IpAddress } from './ip-address';

/** What a driver dials for a host: an address (however it was spelled), or a name the resolver turns into addresses. */
export type DialHost = { kind: 'address'; address: IpAddress } | { kind: 'name'; name: string };

/** A host a connection string may not name: a path or socket, or text that is no host. The message names the rule only. */
export class UnsafeHostError extends ConnectionStringError {}

export const SOCKET_HOST_RULE = 'names a path or socket as its host (a Unix socket, a named pipe), which this service never connects to: name a host and port';
export const UNREADABLE_HOST_RULE = 'names a host that is neither a DNS name nor an IP address';
export const QUERY_HOST_RULE = 'names a server in its query (host=, hostaddr=), which this service does not read: name it as the URL\'s host and port';

const DNS_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i;
// The last label of a name that is meant as an IPv4 address (`1.2.3.256`, `0x7g.1`, `127.0.0.1.`): decimal or 0x.
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/i;

/**
 * The one reading of a host that both the host policy and every driver config use. A host with `/`, `\` or a leading
 * `@` is a path or socket (pg connects a host starting with `/` to a Unix socket; libpq reads `@name` as an abstract
 * socket); an IPv6 address may be bracketed; every IPv4 spelling the operating system accepts is an address. A name
 * is DNS letters, digits, `-` and `_` (ASCII: an international name is given in its `xn--` form), and does not end in
 * a number. Throws UnsafeHostError otherwise.
 */
export function dialHostOf(host: string): DialHost {
  if (/[/\\]/.test(host) || host.startsWith('@')) throw new UnsafeHostError(SOCKET_HOST_RULE);
  const bracketed = host.startsWith('[') && host.endsWith(']');
  const text = bracketed ? host.slice(1, -1) : host;
  const address = parseIpAddress(text);
  if (address !== null && (!bracketed || address.family === 6)) return { kind: 'address', address };
  if (!bracketed && isDnsName(text)) return { kind: 'name', name: text };
  throw new UnsafeHostError(UNREADABLE_HOST_RULE);
}

/** The host to hand a driver: an address in its canonical text (so the driver dials it as checked, without a lookup), or the name. */
export function driverHostOf(host: string): string {
  const dial = dialHostOf(host);
  return dial.kind === 'address' ? formatIpAddress(dial.address) : dial.name;
}

/**
 * libpq reads `host` and `hostaddr` query parameters before the URL's host (a list of hosts, a socket directory); the
 * service's drivers read only the URL's host, so a URL that names a server in its query is refused rather than read
 * two ways.
 */
export function refuseQueryHosts(params: ReadonlyMap<string, string>): void {
  if (params.has('host') || params.has('hostaddr')) throw new UnsafeHostError(QUERY_HOST_RULE);
}

function isDnsName(text: string): boolean {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name === '' || name.length > 253) return false;
  const labels = name.split('.');
  return labels.every((label) => DNS_LABEL.test(label)) && !NUMERIC_LABEL.test(labels[labels.length - 1] ?? '');
}
