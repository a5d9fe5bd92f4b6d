import { SVC4_SCHEME, deriveSigningKey, verifyRequest } from '@svc/signing';
import { SIGNING_SERVICE, signRequest } from './signer.js';

const subtle = globalThis.crypto.subtle;
const utf8 = new TextEncoder();

/*
 * The console signs with the server's own signing steps (libs/signing/src/core) and WebCrypto; the AWS SigV4 suite
 * runs those steps with WebCrypto in libs/signing/src/aws-sig-v4-suite.spec.ts. Here: what the page sends, the
 * gateway's verifier accepts.
 */
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
      SVC4_SCHEME,
      { method: 'POST', path, headers, body: Buffer.from(bytes) },
      async (accessKeyId, scope) => (accessKeyId === credentials.accessKeyId ? deriveSigningKey(SVC4_SCHEME, credentials.secretKey, scope) : null),
      { region: 'us-east-1', service: SIGNING_SERVICE, now },
    );
    return { headers, verdict };
  }

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
});
