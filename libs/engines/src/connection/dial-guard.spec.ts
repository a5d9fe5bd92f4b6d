import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Client } from 'pg';
import { GuardedSocket, HOST_POLICY_CODE, RefusedAddressError, guardedConnector, guardedLookup, guardedStream, type DialPolicy } from './dial-guard';
import { isUnreachableSocketError } from './connection-failure';

const STRICT: DialPolicy = { allowLoopback: false };
const LOOPBACK: DialPolicy = { allowLoopback: true };

/** A listener bound to 127.0.0.1 only, counting the connections it accepts. */
async function loopbackListener(): Promise<{ server: Server; port: number; accepted: () => number }> {
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, accepted: () => accepted };
}

function outcomeOf(socket: Socket): Promise<'connected' | Error> {
  return new Promise((resolve) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', resolve);
  });
}

/** A resolver that answers each call with the next of its answers: a name with a TTL of 0 that rebinds. */
function rebinding(...answers: string[][]): { resolve: Parameters<typeof guardedLookup>[1]; calls: () => number } {
  let calls = 0;
  const resolve = ((_host: string, _options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
    const answer = answers[Math.min(calls, answers.length - 1)] ?? [];
    calls += 1;
    process.nextTick(() => callback(null, answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))));
  }) as Parameters<typeof guardedLookup>[1];
  return { resolve, calls: () => calls };
}

function lookupAll(lookup: ReturnType<typeof guardedLookup>, host: string): Promise<string[] | Error> {
  return new Promise((resolve) => lookup(host, { all: true }, (error, addresses) => resolve(error ?? (addresses as LookupAddress[]).map((entry) => entry.address))));
}

describe('the dial guard: every connect held to the host policy (issue 36)', () => {
  let listener: Awaited<ReturnType<typeof loopbackListener>>;

  beforeAll(async () => {
    listener = await loopbackListener();
  });

  afterAll(async () => {
    await new Promise((resolve) => listener.server.close(resolve));
  });

  it('an IPv4-mapped spelling reaches a listener bound to 127.0.0.1 only (why spellings matter); guarded, it is refused unless loopback is allowed', async () => {
    expect(await outcomeOf(new GuardedSocket(LOOPBACK).connect(listener.port, '::ffff:7f00:1'))).toBe('connected');
    const before = listener.accepted();
    const refused = await outcomeOf(new GuardedSocket(STRICT).connect(listener.port, '::ffff:7f00:1'));
    expect(refused).toBeInstanceOf(RefusedAddressError);
    expect(refused).toMatchObject({ code: HOST_POLICY_CODE, message: 'the host policy refuses to connect to a loopback address' });
    expect(listener.accepted()).toBe(before);
  });

  it('refuses a Unix socket path whatever the policy (pg connects a host starting with / to one)', async () => {
    const refused = await outcomeOf(new GuardedSocket(LOOPBACK).connect('/var/run/postgresql/.s.PGSQL.5432'));
    expect(refused).toMatchObject({ code: HOST_POLICY_CODE, message: 'the host policy refuses to connect to a Unix socket or path' });
  });

  it('refuses a name whose answer changed to a refused address between the check and the connect (DNS rebinding)', async () => {
    const dns = rebinding(['203.0.113.7'], ['127.0.0.1']);
    const lookup = guardedLookup(STRICT, dns.resolve);
    expect(await lookupAll(lookup, 'rebind.example')).toEqual(['203.0.113.7']);
    expect(await lookupAll(lookup, 'rebind.example')).toBeInstanceOf(RefusedAddressError);
    // One refused address among several refuses the name, as the host policy does.
    expect(await lookupAll(guardedLookup(LOOPBACK, rebinding(['203.0.113.7', '169.254.169.254']).resolve), 'mixed.example')).toMatchObject({
      message: 'the host policy refuses to connect to a metadata address',
    });
  });

  it('dials the answers the host policy checked (pinned) without asking the resolver again', async () => {
    const dns = rebinding(['127.0.0.1']);
    const pinned = new Map([['rebind.example', ['203.0.113.7']]]);
    expect(await lookupAll(guardedLookup({ allowLoopback: false, pinned }, dns.resolve), 'rebind.example')).toEqual(['203.0.113.7']);
    expect(dns.calls()).toBe(0);
    const connected = await outcomeOf(new GuardedSocket({ allowLoopback: true, pinned: new Map([['db.rebind.invalid', ['127.0.0.1']]]) }).connect(listener.port, 'db.rebind.invalid'));
    expect(connected).toBe('connected');
  });

  it('holds pg to the policy: an address spelling, a socket directory and a name are refused before any packet', async () => {
    const before = listener.accepted();
    for (const host of ['::ffff:7f00:1', '/var/run/postgresql', 'localhost']) {
      const client = new Client({ host, port: listener.port, user: 'u', database: 'd', stream: guardedStream(STRICT), connectionTimeoutMillis: 2000 });
      const failed = await client.connect().then(() => null, (error: unknown) => error);
      expect({ host, code: (failed as { code?: unknown } | null)?.code }).toEqual({ host, code: HOST_POLICY_CODE });
      // Worded like any unreachable server: no answer tells what a name resolves to.
      expect(isUnreachableSocketError(failed)).toBe(true);
    }
    expect(listener.accepted()).toBe(before);
  });

  it("holds tedious's connector to the policy, for the server and for a redirect's", async () => {
    const socket = await guardedConnector(LOOPBACK)({ host: '127.0.0.1', port: listener.port });
    socket.destroy();
    await expect(guardedConnector(STRICT)({ host: '::ffff:127.0.0.1', port: listener.port })).rejects.toMatchObject({ code: HOST_POLICY_CODE });
    await expect(guardedConnector(LOOPBACK)({ host: '169.254.169.254', port: 80 })).rejects.toMatchObject({ code: HOST_POLICY_CODE });
    await expect(guardedConnector(LOOPBACK)()).rejects.toThrow('tedious named no server');
  });
});
