import { createHash, createHmac } from 'node:crypto';
import { AWS4_SCHEME, parseAuthorization, parseSigningDate, type RequestToSign as HttpRequestToSign, SVC4_SCHEME } from './core';
import { signRequest } from './sign-request';
import { deriveSigningKey } from './signature';
import { verifyRequest } from './verify-request';

const credentials = { accessKeyId: 'AKSVC4TEST', secretKey: 'c2VjcmV0/with+symbols=' };
const options = { region: 'us-east-1', service: 'replication', now: new Date(Date.UTC(2024, 4, 17, 8, 30, 15)) };
const body = '<CreateWarehouseReplicationRequest><ParallelTablesLimit>10</ParallelTablesLimit></CreateWarehouseReplicationRequest>';
const request: HttpRequestToSign = {
  method: 'POST',
  path: '/api/CreateWarehouseReplication',
  headers: {
    Host: 'svc.example.com:8443',
    'Content-Type': 'application/xml',
    'Content-Length': String(Buffer.byteLength(body)),
  },
  body,
};

const lookup = async (accessKeyId: string, scope: { date: string; region: string; service: string }) =>
  accessKeyId === credentials.accessKeyId ? deriveSigningKey(SVC4_SCHEME, credentials.secretKey, scope) : null;

describe('signRequest with SVC4_SCHEME', () => {
  it('returns the headers to send, with date, body hash and Authorization added', () => {
    const headers = signRequest(SVC4_SCHEME, request, credentials, options);
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const { authorization, ...others } = headers;
    expect(others).toEqual({
      host: 'svc.example.com:8443',
      'content-type': 'application/xml',
      'content-length': String(Buffer.byteLength(body)),
      'x-svc-date': '20240517T083015Z',
      'x-svc-content-sha256': bodyHash,
    });
    expect(authorization).toMatch(
      /^SVC4-HMAC-SHA256 Credential=AKSVC4TEST\/20240517\/us-east-1\/replication\/svc4_request, SignedHeaders=content-length;content-type;host;x-svc-content-sha256;x-svc-date, Signature=[0-9a-f]{64}$/,
    );
  });

  it('computes the signature by the SigV4 recipe with the SVC4 names', () => {
    const headers = signRequest(SVC4_SCHEME, request, credentials, options);
    // Written out independently of the library: kSecret = "SVC4" + secret, terminator svc4_request.
    const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
    const key = hmac(hmac(hmac(hmac(`SVC4${credentials.secretKey}`, '20240517'), 'us-east-1'), 'replication'), 'svc4_request');
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const canonical = [
      'POST',
      '/api/CreateWarehouseReplication',
      '',
      `content-length:${Buffer.byteLength(body)}`,
      'content-type:application/xml',
      'host:svc.example.com:8443',
      `x-svc-content-sha256:${bodyHash}`,
      'x-svc-date:20240517T083015Z',
      '',
      'content-length;content-type;host;x-svc-content-sha256;x-svc-date',
      bodyHash,
    ].join('\n');
    const toSign = [
      'SVC4-HMAC-SHA256',
      '20240517T083015Z',
      '20240517/us-east-1/replication/svc4_request',
      createHash('sha256').update(canonical).digest('hex'),
    ].join('\n');
    expect(headers['authorization']).toContain(`Signature=${hmac(key, toSign).toString('hex')}`);
  });

  it('gives a different signature than AWS4 for the same request', () => {
    const svc4 = parseAuthorization(SVC4_SCHEME, signRequest(SVC4_SCHEME, request, credentials, options)['authorization']);
    const aws4 = parseAuthorization(AWS4_SCHEME, signRequest(AWS4_SCHEME, request, credentials, options)['authorization']);
    expect(svc4.ok && aws4.ok && svc4.value.signature !== aws4.value.signature).toBe(true);
  });

  it('signs only the headers that are present, and leaves other headers unsigned', () => {
    const headers = signRequest(SVC4_SCHEME, { ...request, headers: { host: 'h', 'x-trace': 'abc' } }, credentials, options);
    expect(headers['x-trace']).toBe('abc');
    expect(headers['authorization']).toContain('SignedHeaders=host;x-svc-content-sha256;x-svc-date,');
  });

  it('replaces stale Authorization, date and hash headers', () => {
    const headers = signRequest(
      SVC4_SCHEME,
      { ...request, headers: { ...request.headers, Authorization: 'old', 'X-Svc-Date': '19990101T000000Z', 'X-Svc-Content-Sha256': 'f'.repeat(64) } },
      credentials,
      options,
    );
    expect(Object.keys(headers).filter((name) => name === 'authorization' || name.startsWith('x-svc-'))).toHaveLength(3);
    expect(headers['x-svc-date']).toBe('20240517T083015Z');
    expect(headers['x-svc-content-sha256']).toBe(createHash('sha256').update(body).digest('hex'));
    expect(headers['authorization']).not.toBe('old');
  });

  it('hashes a Buffer body like the same string', () => {
    const fromString = signRequest(SVC4_SCHEME, request, credentials, options);
    const fromBuffer = signRequest(SVC4_SCHEME, { ...request, body: Buffer.from(body) }, credentials, options);
    expect(fromBuffer).toEqual(fromString);
  });

  it('uses the current time when no `now` is given', () => {
    const before = Date.now();
    const headers = signRequest(SVC4_SCHEME, request, credentials, { region: 'us-east-1', service: 'replication' });
    const signedAt = parseSigningDate(headers['x-svc-date'])!.getTime();
    expect(signedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(signedAt).toBeLessThanOrEqual(Date.now());
  });

  it('signs a nonce in the nonce header, so that two calls in the same second differ', async () => {
    const first = signRequest(SVC4_SCHEME, request, credentials, { ...options, nonce: 'nonce-1' });
    const second = signRequest(SVC4_SCHEME, request, credentials, { ...options, nonce: 'nonce-2' });
    expect(first['x-svc-nonce']).toBe('nonce-1');
    expect(first['authorization']).toMatch(/SignedHeaders=content-length;content-type;host;x-svc-content-sha256;x-svc-date;x-svc-nonce,/);
    expect(first['authorization']).not.toBe(second['authorization']);
    expect(await verifyRequest(SVC4_SCHEME, { ...request, headers: first }, lookup, options)).toEqual({ ok: true, accessKeyId: credentials.accessKeyId });
    const swapped = { ...first, 'x-svc-nonce': 'nonce-2' };
    expect(await verifyRequest(SVC4_SCHEME, { ...request, headers: swapped }, lookup, options)).toMatchObject({ ok: false, failure: { reason: 'SignatureMismatch' } });
  });

  it('refuses a nonce for a scheme without a nonce header', () => {
    expect(() => signRequest(AWS4_SCHEME, request, credentials, { ...options, nonce: 'n' })).toThrow('no nonce header');
  });

  it('refuses a request without a host header', () => {
    expect(() => signRequest(SVC4_SCHEME, { ...request, headers: { 'content-type': 'application/json' } }, credentials, options)).toThrow(
      'host header',
    );
  });
});

describe('SVC4 round trips', () => {
  it.each<[string, HttpRequestToSign]>([
    ['XML create', request],
    ['JSON alter', { ...request, path: '/api/AlterWarehouseReplication', headers: { host: 'h', 'content-type': 'application/json' }, body: '{"replicationId":"x"}' }],
    ['empty body', { ...request, body: '' }],
    ['binary body', { ...request, body: Buffer.from([0, 255, 128, 10, 13]) }],
    ['query and odd path', { ...request, path: '/api/a b/%2F', query: { z: ['2', '1'], 'é': '' } }],
    ['header with folded whitespace', { ...request, headers: { ...request.headers, 'content-type': '  application/xml;   charset=utf-8 ' } }],
  ])('%s: what signRequest signs, verifyRequest accepts', async (_case, toSign) => {
    const headers = signRequest(SVC4_SCHEME, toSign, credentials, options);
    const result = await verifyRequest(SVC4_SCHEME, { ...toSign, headers }, lookup, options);
    expect(result).toEqual({ ok: true, accessKeyId: credentials.accessKeyId });
  });

  it('the header set survives case changes in transit (HTTP header names are case-insensitive)', async () => {
    const headers = signRequest(SVC4_SCHEME, request, credentials, options);
    const upperCased = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(await verifyRequest(SVC4_SCHEME, { ...request, headers: upperCased }, lookup, options)).toEqual({ ok: true, accessKeyId: credentials.accessKeyId });
  });
});
