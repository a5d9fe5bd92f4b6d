import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { warehouseEndpointOf } from '@svc/engines';
import { databaseAccessOf } from './engine';
import type { ReachabilityTarget } from './reachability';

/** What a connection string or Warehouse.Url may name: never the service's own control database, nor a private address class. */
export interface TargetPolicy {
  /** The registry's control database (DATABASE_URL): no replication may read or write it. */
  controlDatabase: { host: string; port: number; database: string };
  /** Loopback addresses (127.0.0.0/8, ::1): a development setup's (npm start); refused otherwise. */
  allowLoopback: boolean;
}

/** Resolves a host name to its addresses (the system resolver by default; tests give their own). */
export type ResolveHost = (host: string) => Promise<string[]>;

interface Endpoint {
  field: string;
  host: string;
  port: number;
  database: string;
}

const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/**
 * The field messages of every target that names what no replication may: the control database (whose sealed
 * secrets and access keys a Source would read and a Staging would write into), a cloud metadata or link-local
 * address, an unspecified address, or loopback unless allowed. Checked before anything is contacted. A name that
 * does not resolve is left to the reachability probe.
 */
export async function targetPolicyProblems(target: ReachabilityTarget, policy: TargetPolicy, resolveHost: ResolveHost = systemResolve): Promise<string[]> {
  const endpoints: Endpoint[] = [];
  const database = (field: string, connectionString: string | undefined) => {
    if (connectionString === undefined) return;
    const identity = databaseAccessOf(connectionString)?.databaseIdentity(connectionString);
    const parsed = identity ? endpointOfIdentity(identity) : null;
    if (parsed) endpoints.push({ field, ...parsed });
  };
  database('Source\\ConnectionString', target.source?.connectionString);
  database('Staging\\ConnectionString', target.staging?.connectionString);
  if (target.warehouse) {
    const endpoint = warehouseEndpointOf(target.warehouse.url);
    if (endpoint) endpoints.push({ field: 'Warehouse\\Url', host: endpoint.host, port: endpoint.port, database: target.warehouse.databaseName.toLowerCase() });
  }
  const controlAddresses = new Set(await resolveQuietly(resolveHost, policy.controlDatabase.host));
  const problems: string[] = [];
  for (const endpoint of endpoints) {
    const addresses = await resolveQuietly(resolveHost, endpoint.host);
    const refusal = addressRefusal(addresses, policy.allowLoopback);
    const sameServer = addresses.some((address) => controlAddresses.has(address) || (isLoopback(address) && [...controlAddresses].some(isLoopback)));
    if (sameServer && endpoint.port === policy.controlDatabase.port && endpoint.database === policy.controlDatabase.database.toLowerCase()) {
      problems.push(`{${endpoint.field}}: names the replication service's own control database, which no replication may read or write`);
    } else if (refusal !== null) {
      problems.push(`{${endpoint.field}}: ${refusal}`);
    }
  }
  return problems;
}

function addressRefusal(addresses: string[], allowLoopback: boolean): string | null {
  if (addresses.some((address) => METADATA_ADDRESSES.has(address.toLowerCase()))) return 'names a cloud metadata address, which this service never connects to';
  if (addresses.some(isLinkLocal)) return 'names a link-local address, which this service never connects to';
  if (addresses.some(isUnspecified)) return 'names an unspecified address (0.0.0.0 or ::), which this service never connects to';
  if (!allowLoopback && addresses.some(isLoopback)) {
    return 'names a loopback address, which this service does not connect to unless its operator allows it (ALLOW_LOOPBACK_TARGETS on job-registry, for a development setup)';
  }
  return null;
}

/** `engine://host:port/database` (databaseIdentity's form; an IPv6 host is unbracketed, a SQL Server instance follows the port) as its parts. */
export function endpointOfIdentity(identity: string): { host: string; port: number; database: string } | null {
  const rest = identity.replace(/^[a-z]+:\/\//, '');
  const slash = rest.indexOf('/');
  if (slash === -1) return null;
  const hostPort = rest.slice(0, slash).replace(/\\.*$/, '');
  const match = /^(.*):(\d*)$/.exec(hostPort);
  const host = (match ? (match[1] ?? '') : hostPort).replace(/^\[|\]$/g, '');
  if (host === '') return null;
  return { host, port: Number(match?.[2] || 0), database: rest.slice(slash + 1) };
}

async function resolveQuietly(resolveHost: ResolveHost, host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  return resolveHost(host).catch(() => []);
}

async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true })).map((entry) => entry.address);
}

function isLoopback(address: string): boolean {
  const lower = address.toLowerCase();
  return lower === '::1' || lower.startsWith('127.') || lower.startsWith('::ffff:127.');
}

function isLinkLocal(address: string): boolean {
  const lower = address.toLowerCase();
  return lower.startsWith('169.254.') || lower.startsWith('::ffff:169.254.') || /^fe[89ab][0-9a-f]:/.test(lower);
}

function isUnspecified(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '::ffff:0.0.0.0';
}
