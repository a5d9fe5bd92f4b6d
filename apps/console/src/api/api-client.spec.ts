import { SVC4_SCHEME, deriveSigningKey, verifyRequest } from '@svc/signing';
import { ApiClient, errorMessagesOf } from './api-client.js';
import { PROBE_BODY, permissionFrom, probePermissions } from './permissions.js';

const KEY = { accessKeyId: 'SVCCONSOLEKEY', secretKey: 'console-secret' };

/** A stand-in for the gateway: verifies the SVC4 signature with libs/signing, as the real one does, then answers. */
function gateway(region: string, answer: (operation: string, body: unknown) => { status: number; body: string }) {
  const calls: { operation: string; headers: Record<string, string>; body: unknown }[] = [];
  const fetch = (async (input: URL, init?: RequestInit) => {
    const url = new URL(input.href);
    const headers = { ...(init?.headers as Record<string, string>) };
    const bytes = Buffer.from(init?.body as Uint8Array);
    const operation = url.pathname.replace('/api/', '');
    calls.push({ operation, headers, body: JSON.parse(bytes.toString('utf8')) });
    // What the browser adds itself.
    const sent = { ...headers, host: url.host, 'content-length': String(bytes.length) };
    const verdict = await verifyRequest(SVC4_SCHEME, { method: String(init?.method), path: url.pathname, headers: sent, body: bytes }, async (id, scope) => (id === KEY.accessKeyId ? deriveSigningKey(SVC4_SCHEME, KEY.secretKey, scope) : null), {
      region,
      service: 'replication',
      now: new Date(),
    });
    const reply = verdict.ok ? answer(operation, JSON.parse(bytes.toString('utf8'))) : { status: 403, body: JSON.stringify({ errors: [verdict.failure.message], requestId: 1 }) };
    return new Response(reply.body, { status: reply.status });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const client = (fetch: typeof globalThis.fetch, region = 'us-east-1') => new ApiClient({ origin: 'http://127.0.0.1:8080', credentials: KEY, region, subtle: globalThis.crypto.subtle, fetch });

describe('ApiClient', () => {
  it('sends signed JSON the gateway verifies, leaving Host and Content-Length to the browser, and no secret', async () => {
    const { fetch, calls } = gateway('us-east-1', () => ({ status: 200, body: '{"replications":[]}' }));
    expect(await client(fetch).call('ListWarehouseReplications', {})).toEqual({ ok: true, value: { replications: [] } });
    const headers = calls[0]?.headers ?? {};
    expect(Object.keys(headers).sort()).toEqual(['authorization', 'content-type', 'x-svc-content-sha256', 'x-svc-date', 'x-svc-nonce']);
    expect(headers['authorization']).toMatch(/SignedHeaders=content-length;content-type;host;x-svc-content-sha256;x-svc-date;x-svc-nonce,/);
    expect(JSON.stringify(calls)).not.toContain(KEY.secretKey);
  });

  it('signs two identical calls in the same second differently, so that the gateway does not take the second for a replay', async () => {
    const { fetch, calls } = gateway('us-east-1', () => ({ status: 200, body: '' }));
    const sameSecond = new Date();
    const api = new ApiClient({ origin: 'http://127.0.0.1:8080', credentials: KEY, region: 'us-east-1', subtle: globalThis.crypto.subtle, fetch, now: () => sameSecond });
    expect((await api.call('StartReplication', {})).ok).toBe(true);
    expect((await api.call('StartReplication', {})).ok).toBe(true);
    expect(calls[0]?.headers['authorization']).not.toBe(calls[1]?.headers['authorization']);
  });

  it('answers null for an empty 200 and the messages of an error body', async () => {
    const { fetch } = gateway('us-east-1', (operation) => (operation === 'StopReplicationService' ? { status: 200, body: '' } : { status: 400, body: '{"errors":["{Warehouse\\\\BucketName}: invalid"],"requestId":7}' }));
    expect(await client(fetch).call('StopReplicationService', {})).toEqual({ ok: true, value: null });
    expect(await client(fetch).call('CreateWarehouseReplication', {})).toEqual({ ok: false, status: 400, messages: ['{Warehouse\\BucketName}: invalid'] });
  });

  it('adopts the region the gateway names when it refuses the scope', async () => {
    const { fetch, calls } = gateway('eu-west-1', () => ({ status: 200, body: '{"replications":[]}' }));
    const api = client(fetch, 'us-east-1');
    expect((await api.call('ListWarehouseReplications', {})).ok).toBe(true);
    expect(api.signingRegion).toBe('eu-west-1');
    expect(calls).toHaveLength(2);
  });

  it('says when nothing answers', async () => {
    const failing = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof globalThis.fetch;
    expect(await client(failing).call('ListWarehouseReplications', {})).toEqual({ ok: false, status: 0, messages: ['the service did not answer (Failed to fetch)'] });
    expect(errorMessagesOf('<html>', 502)).toEqual(['the service answered HTTP 502']);
  });
});

describe('permissions', () => {
  it('learns from a probe the gateway refuses before the registry: 403 denies with its reason, 400 allows', async () => {
    const { fetch, calls } = gateway('us-east-1', (operation) =>
      operation === 'AlterConfiguration' || operation === 'DeleteWarehouseReplication'
        ? { status: 403, body: JSON.stringify({ errors: [`access key SVCCONSOLEKEY is not allowed to call ${operation}`], requestId: 1 }) }
        : { status: 400, body: '{"errors":["{ConsolePermissionProbe}: unknown field"],"requestId":2}' },
    );
    const permissions = await probePermissions(client(fetch));
    expect(permissions.AlterConfiguration).toEqual({ allowed: false, reason: 'access key SVCCONSOLEKEY is not allowed to call AlterConfiguration' });
    expect(permissions.DeleteWarehouseReplication.allowed).toBe(false);
    expect(permissions.AlterWarehouseReplication).toEqual({ allowed: true });
    expect(calls.every((call) => JSON.stringify(call.body) === JSON.stringify(PROBE_BODY))).toBe(true);
    expect(permissionFrom({ ok: false, status: 404, messages: ['unknown operation'] })).toEqual({ allowed: true });
  });
});
