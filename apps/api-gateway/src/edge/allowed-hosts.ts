import { isIP } from 'node:net';
import { isLoopbackHost } from '@svc/config';

/** A host name or IP address (IPv6 bracketed), lower case, and a port or null when none is written. */
export interface HostAndPort {
  host: string;
  port: number | null;
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const PORT = /^\d{1,5}$/;

/**
 * `host`, `host:port`, `[v6]` or `[v6]:port` as a Host header or a SVC_ALLOWED_HOSTS entry writes it, or null
 * when it is none of these. Names are compared without case and without a final dot (`example.com.`).
 */
export function parseHostAndPort(text: string): HostAndPort | null {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(.*))?$/.exec(text.trim().toLowerCase());
  if (!match) return null;
  const [, hostPart = '', portText] = match;
  let port: number | null = null;
  if (portText !== undefined) {
    if (!PORT.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return null;
    port = Number(portText);
  }
  if (hostPart.startsWith('[')) {
    const address = hostPart.slice(1, -1);
    return isIP(address) === 6 ? { host: `[${address}]`, port } : null;
  }
  const host = hostPart.replace(/\.$/, '');
  return isIP(host) === 4 || HOST_NAME.test(host) ? { host, port } : null;
}

/** SVC_ALLOWED_HOSTS: comma-separated entries; the entries it could not read are returned as problems. */
export function parseAllowedHosts(text: string): { hosts: HostAndPort[]; unreadable: string[] } {
  const hosts: HostAndPort[] = [];
  const unreadable: string[] = [];
  for (const entry of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const parsed = parseHostAndPort(entry);
    if (parsed) hosts.push(parsed);
    else unreadable.push(entry);
  }
  return { hosts, unreadable };
}

/**
 * Whether a request's Host header names one of `allowed`: the same host, and the same port when the entry has
 * one (an entry without a port allows every port, as the port a proxy or a load balancer shows may differ).
 */
export function hostIsAllowed(hostHeader: string | undefined, allowed: readonly HostAndPort[]): boolean {
  const sent = hostHeader === undefined ? null : parseHostAndPort(hostHeader);
  if (sent === null) return false;
  return allowed.some((entry) => entry.host === sent.host && (entry.port === null || entry.port === sent.port));
}

/** The warning a gateway gives at start when it listens beyond loopback and answers calls signed for any Host. */
export function allowedHostsWarning(listenHost: string, allowedHosts: readonly HostAndPort[] | undefined): string | null {
  if (allowedHosts !== undefined || isLoopbackHost(listenHost)) return null;
  return (
    `SVC_ALLOWED_HOSTS is not set and the API listens on ${listenHost}: calls signed for any Host are answered, so a request ` +
    'signed for another service that shares these access keys is accepted here too. Set SVC_ALLOWED_HOSTS to the names clients use'
  );
}
