import { lookup as systemLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { Socket, isIP, type LookupFunction, type TcpSocketConnectOpts } from 'node:net';
import { addressClassOf, type AddressClass } from './address-class';
import { parseIpAddress } from './ip-address';

/**
 * What every connection the service opens to a database may reach, applied at connect time (issue 36): after the
 * host policy of Create and Alter, a name may answer otherwise when the driver resolves it again (DNS rebinding, a
 * TTL of 0), in the registry's own probes and in every worker for as long as the replication runs.
 */
export interface DialPolicy {
  /** Loopback addresses may be dialled: ALLOW_LOOPBACK_TARGETS, a development setup's. */
  allowLoopback: boolean;
  /**
   * Answers the host policy already resolved and checked, by name: dialled as they are, without asking the resolver
   * again, so that what was checked is what is dialled.
   */
  pinned?: ReadonlyMap<string, readonly string[]>;
}

/**
 * For a caller that names no policy (a test, a benchmark): the classes no connection reaches are refused at every
 * connect, loopback is allowed. The registry and the workers pass their own (ALLOW_LOOPBACK_TARGETS).
 */
export const DEFAULT_DIAL_POLICY: DialPolicy = { allowLoopback: true };

/** Code of a connection refused by the dial policy: counted with the unreachable ones (connection-failure.ts). */
export const HOST_POLICY_CODE = 'ERR_HOST_POLICY';

/** A connect the dial policy refused: the name resolved to an address of a refused class, or the host is a socket. Names neither. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = HOST_POLICY_CODE;

  constructor(refused: AddressClass | 'socket') {
    super(refused === 'socket' ? 'the host policy refuses to connect to a Unix socket or path' : `the host policy refuses to connect to a ${refused} address`);
  }
}

/** The class that refuses `address` under the policy, or null when it may be dialled. Text that is no address is refused as unspecified. */
export function dialRefusal(address: string, policy: DialPolicy): AddressClass | null {
  const parsed = parseIpAddress(address);
  if (parsed === null) return 'unspecified';
  const found = addressClassOf(parsed);
  return found === 'loopback' && policy.allowLoopback ? null : found;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect that resolves as Node would (or answers what the policy pinned) and fails the connect
 * when any address the name has is refused, as the host policy refuses a name any of whose addresses is.
 */
export function guardedLookup(policy: DialPolicy, resolve: typeof systemLookup = systemLookup): LookupFunction {
  return (hostname, options, callback: LookupCallback) => {
    const settle = (addresses: readonly LookupAddress[]) => {
      const refused = addresses.map((entry) => dialRefusal(entry.address, policy)).find((found) => found !== null);
      if (refused !== undefined) return callback(new RefusedAddressError(refused), '');
      const first = addresses[0];
      if (first === undefined) return callback(Object.assign(new Error(`no address for the host`), { code: 'ENOTFOUND' }), '');
      if (options.all === true) return callback(null, [...addresses]);
      return callback(null, first.address, first.family);
    };
    const pinned = policy.pinned?.get(hostname);
    if (pinned !== undefined) {
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
      const entries = pinned.map((address) => ({ address, family: isIP(address) })).filter((entry) => !family || entry.family === family);
      process.nextTick(() => settle(entries));
      return;
    }
    const all: LookupAllOptions = { ...options, all: true };
    resolve(hostname, all, (error, addresses) => (error ? callback(error, '') : settle(addresses)));
  };
}

/**
 * A TCP socket whose every connect is held to the policy: a path (pg's Unix socket) is refused, an address literal
 * is checked before it is dialled, and a name is resolved through guardedLookup. TLS is laid over it by the driver
 * with the name as given, so the certificate is still verified against the name.
 */
export class GuardedSocket extends Socket {
  constructor(private readonly policy: DialPolicy) {
    super();
  }

  /** pg calls `connect(port, host)`, or `connect(path)` for a Unix socket; guardedConnector calls it with options. */
  override connect(target: unknown, host?: unknown, listener?: unknown): this {
    const options = tcpOptions(target, host);
    const done = typeof listener === 'function' ? (listener as () => void) : typeof host === 'function' ? (host as () => void) : undefined;
    if (options === null) return this.refuse(new RefusedAddressError('socket'));
    const literal = options.host !== undefined && isIP(options.host) !== 0 ? dialRefusal(options.host, this.policy) : null;
    if (literal !== null) return this.refuse(new RefusedAddressError(literal));
    return super.connect({ ...options, lookup: guardedLookup(this.policy) }, done);
  }

  private refuse(error: RefusedAddressError): this {
    process.nextTick(() => this.destroy(error));
    return this;
  }
}

function tcpOptions(target: unknown, host: unknown): TcpSocketConnectOpts | null {
  if (typeof target === 'object' && target !== null) {
    const given = target as Partial<TcpSocketConnectOpts> & { path?: unknown };
    if (given.path !== undefined || given.port === undefined) return null;
    return { ...given, port: given.port };
  }
  const port = typeof target === 'number' ? target : typeof target === 'string' && /^\d+$/.test(target) ? Number(target) : null;
  if (port === null) return null;
  return { port, host: typeof host === 'string' ? host : 'localhost' };
}

/** pg's `stream` option: every connection of a client or pool opens through a GuardedSocket. */
export function guardedStream(policy: DialPolicy): () => Socket {
  return () => new GuardedSocket(policy);
}

/** What tedious hands its `connector` (connection.js, connectOnPort): the server or the one a redirect named, and its port. */
interface TediousConnectOptions {
  host: string;
  port: number;
  localAddress?: string | undefined;
}

/**
 * tedious's `connector` option: its socket through a GuardedSocket, to the server or to the one a redirect (Azure
 * routing) names, on the port tedious found (a named instance's, from the SQL Browser). tedious types the option
 * without parameters and passes them at run time, hence the optional ones.
 */
export function guardedConnector(policy: DialPolicy): (options?: TediousConnectOptions, lookup?: unknown, signal?: AbortSignal) => Promise<Socket> {
  return (options, _lookup, signal) =>
    new Promise<Socket>((resolve, reject) => {
      if (options === undefined) return reject(new Error('tedious named no server to connect to'));
      const socket = new GuardedSocket(policy);
      const settled = () => {
        signal?.removeEventListener('abort', onAbort);
        socket.removeListener('error', onError);
        socket.removeListener('connect', onConnect);
      };
      const onAbort = () => {
        settled();
        socket.destroy();
        const reason: unknown = signal?.reason;
        reject(reason instanceof Error ? reason : new Error('connect aborted'));
      };
      const onError = (error: Error) => {
        settled();
        reject(error);
      };
      const onConnect = () => {
        settled();
        resolve(socket);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      socket.once('error', onError);
      socket.once('connect', onConnect);
      socket.connect({ host: options.host, port: options.port, ...(options.localAddress !== undefined && { localAddress: options.localAddress }) });
    });
}
