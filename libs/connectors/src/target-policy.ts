import { lookup } from 'node:dns/promises';
import {
  ADDRESS_CLASSES,
  ConnectionStringError,
  UnsafeHostError,
  addressClassOf,
  dialHostOf,
  formatIpAddress,
  parseIpAddress,
  sameAddress,
  warehouseDialEndpointOf,
  type AddressClass,
  type DatabaseEndpoint,
  type IpAddress,
} from '@svc/engines';
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

const REFUSALS: Record<AddressClass, string> = {
  metadata: 'names a cloud metadata address, which this service never connects to',
  'link-local': 'names a link-local address, which this service never connects to',
  unspecified: 'names an unspecified address (0.0.0.0/8 or ::), which this service never connects to',
  multicast: 'names a multicast, broadcast or reserved address, which this service never connects to',
  loopback:
    'names a loopback address, which this service does not connect to unless its operator allows it (ALLOW_LOOPBACK_TARGETS on job-registry, for a development setup)',
};

const CONTROL_DATABASE_REFUSAL = "names the replication service's own control database, which no replication may read or write";

interface Endpoint extends DatabaseEndpoint {
  field: string;
}

/**
 * The field messages of every target that names what no replication may: a host that is a path or socket or cannot be
 * read, the control database (whose sealed secrets and access keys a Source would read and a Staging would write
 * into), a cloud metadata, link-local, unspecified or multicast address (however spelled: `0x7f.1`, `::ffff:7f00:1`,
 * NAT64 and 6to4 forms carry their IPv4 address's class), or loopback unless allowed. Checks what the engine's driver
 * dials (DatabaseAccess.endpoint, warehouseDialEndpointOf), before anything is contacted; a name is resolved and
 * every address it has is checked. A name that does not resolve is left to the reachability probe; a string of no
 * engine to the reachability check's own message.
 */
export async function targetPolicyProblems(target: ReachabilityTarget, policy: TargetPolicy, resolveHost: ResolveHost = systemResolve): Promise<string[]> {
  return (await checkTargetPolicy(target, policy, resolveHost)).problems;
}

/** The policy's verdict, and what each name it checked resolved to: the answers the probes are to dial (DialPolicy.pinned). */
export interface TargetPolicyVerdict {
  problems: string[];
  pinned: ReadonlyMap<string, readonly string[]>;
}

/** targetPolicyProblems, with the answers it checked, so that the probes that follow dial them instead of resolving again. */
export async function checkTargetPolicy(target: ReachabilityTarget, policy: TargetPolicy, resolveHost: ResolveHost = systemResolve): Promise<TargetPolicyVerdict> {
  const problems: string[] = [];
  const pinned = new Map<string, string[]>();
  const endpoints: Endpoint[] = [];
  const read = (field: string, endpointOf: () => DatabaseEndpoint | null) => {
    try {
      const endpoint = endpointOf();
      if (endpoint !== null) endpoints.push({ field, ...endpoint });
    } catch (error) {
      // Any other ConnectionStringError is the probe's to word, as before: the driver cannot be configured, so nothing is dialled.
      if (error instanceof UnsafeHostError) problems.push(`{${field}}: ${error.message}`);
      else if (!(error instanceof ConnectionStringError)) throw error;
    }
  };
  const database = (field: string, connectionString: string | undefined) => {
    if (connectionString !== undefined) read(field, () => databaseAccessOf(connectionString)?.endpoint(connectionString) ?? null);
  };
  database('Source\\ConnectionString', target.source?.connectionString);
  database('Staging\\ConnectionString', target.staging?.connectionString);
  const warehouse = target.warehouse;
  if (warehouse) {
    read('Warehouse\\Url', () => {
      const endpoint = warehouseDialEndpointOf(warehouse.url);
      return endpoint && { host: endpoint.host, port: endpoint.port, database: warehouse.databaseName };
    });
  }
  if (endpoints.length === 0) return { problems, pinned };
  const control = await controlServer(policy.controlDatabase.host, resolveHost);
  for (const endpoint of endpoints) {
    const addresses = await addressesOf(endpoint.host, resolveHost);
    if (dialHostOf(endpoint.host).kind === 'name' && addresses.length > 0) pinned.set(endpoint.host, addresses.map((address) => formatIpAddress(address)));
    const refusal = addressRefusal(addresses, policy.allowLoopback);
    if (namesControlDatabase(endpoint, addresses, control, policy.controlDatabase)) {
      problems.push(`{${endpoint.field}}: ${CONTROL_DATABASE_REFUSAL}`);
    } else if (refusal !== null) {
      problems.push(`{${endpoint.field}}: ${refusal}`);
    }
  }
  return { problems, pinned };
}

/** The refusal for the most telling class among the addresses, or null when every one may be reached. */
function addressRefusal(addresses: readonly IpAddress[], allowLoopback: boolean): string | null {
  const classes = new Set(addresses.map(addressClassOf));
  if (allowLoopback) classes.delete('loopback');
  const refused = ADDRESS_CLASSES.find((addressClass) => classes.has(addressClass));
  return refused === undefined ? null : REFUSALS[refused];
}

/** The control database's server: its addresses, and whether it is this machine (loopback, or a Unix socket). */
interface ControlServer {
  addresses: readonly IpAddress[];
  local: boolean;
}

async function controlServer(host: string, resolveHost: ResolveHost): Promise<ControlServer> {
  try {
    const addresses = await addressesOf(host, resolveHost);
    return { addresses, local: addresses.some((address) => addressClassOf(address) === 'loopback') };
  } catch (error) {
    // DATABASE_URL may name a Unix socket: the server is on this machine.
    if (error instanceof UnsafeHostError) return { addresses: [], local: true };
    throw error;
  }
}

function namesControlDatabase(endpoint: Endpoint, addresses: readonly IpAddress[], control: ControlServer, controlDatabase: TargetPolicy['controlDatabase']): boolean {
  if (endpoint.port !== controlDatabase.port || endpoint.database.toLowerCase() !== controlDatabase.database.toLowerCase()) return false;
  return addresses.some(
    (address) => control.addresses.some((controlAddress) => sameAddress(address, controlAddress)) || (control.local && addressClassOf(address) === 'loopback'),
  );
}

/**
 * Every address a host stands for: an address literal itself, a name what the resolver answers (`localhost` and
 * `*.localhost` are loopback whatever it answers, RFC 6761). Nothing for a name that does not resolve.
 */
async function addressesOf(host: string, resolveHost: ResolveHost): Promise<IpAddress[]> {
  const dial = dialHostOf(host);
  if (dial.kind === 'address') return [dial.address];
  const name = dial.name.toLowerCase().replace(/\.$/, '');
  const local = name === 'localhost' || name.endsWith('.localhost') ? [parseIpAddress('127.0.0.1'), parseIpAddress('::1')] : [];
  const resolved = await resolveHost(dial.name).catch((): string[] => []);
  return [...local, ...resolved.map(parseIpAddress)].filter((address): address is IpAddress => address !== null);
}

async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true })).map((entry) => entry.address);
}

/**
 * Why this service may not connect to `host` (a cloud metadata, link-local, unspecified or multicast address, or
 * loopback unless allowed), or null: the rule of connection strings, for the other places it sends to (alert targets).
 */
export async function hostRefusal(host: string, allowLoopback: boolean, resolveHost: ResolveHost = systemResolve): Promise<string | null> {
  try {
    return addressRefusal(await addressesOf(host, resolveHost), allowLoopback);
  } catch (error) {
    if (error instanceof UnsafeHostError) return error.message;
    throw error;
  }
}
