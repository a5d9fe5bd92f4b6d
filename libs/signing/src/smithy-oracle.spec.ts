import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Checksum, HttpRequest, SourceData } from '@smithy/types';
import { AWS4_SCHEME, type RequestToSign as HttpRequestToSign } from './core';
import { signRequest } from './sign-request';
import { deriveSigningKey } from './signature';
import { verifyRequest } from './verify-request';

/** @smithy/signature-v4 needs a SHA-256 (or HMAC-SHA256 when given a key) implementation. */
class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.create();
  }
  update(data: Uint8Array): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.create();
  }
  private create(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key = typeof this.secret === 'string' ? this.secret : Buffer.from(this.secret as Uint8Array);
    return createHmac('sha256', key);
  }
}

/** Deterministic PRNG (mulberry32) so a failure names a seed that reproduces it. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATH_ALPHABET = ['a', 'Z', '0', '-', '_', '.', '~', ' ', '%', '+', '=', '!', '(', '*', 'é', 'ሴ', '😀', ':', '@', '$'];
const QUERY_ALPHABET = [...PATH_ALPHABET, '&', '/', '?', '#'];
const VALUE_ALPHABET = ['a', 'B', '1', ' ', '  ', '\t', ',', ';', '"', '/', '=', 'x-y'];

function randomRequest(seed: number): { request: HttpRequestToSign; smithyRequest: HttpRequest } {
  const random = randomSource(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const text = (alphabet: readonly string[], min: number, max: number): string =>
    Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, () => pick(alphabet)).join('');

  const segments = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(['.', '..', '', text(PATH_ALPHABET, 1, 6)]));
  const path = `/${segments.join('/')}${random() < 0.3 ? '/' : ''}`;

  const query: Record<string, string | string[]> = {};
  for (let i = Math.floor(random() * 4); i > 0; i--) {
    const name = text(QUERY_ALPHABET, 1, 5);
    query[name] = random() < 0.3 ? [text(QUERY_ALPHABET, 0, 5), text(QUERY_ALPHABET, 0, 5)] : text(QUERY_ALPHABET, 0, 5);
  }

  const body = text(QUERY_ALPHABET, 0, 40);
  const headers: Record<string, string> = {
    host: `h${seed}.example.com`,
    'content-type': `${text(VALUE_ALPHABET, 0, 2)}${pick(['application/json', 'application/xml', 'text/plain; charset=utf-8'])}${text(VALUE_ALPHABET, 0, 4)}`,
    'content-length': String(Buffer.byteLength(body)),
  };
  const method = pick(['GET', 'POST', 'PUT']);
  return {
    request: { method, path, query, headers, body },
    smithyRequest: { method, protocol: 'https:', hostname: headers.host, path, query, headers: { ...headers }, body },
  };
}

const credentials = { accessKeyId: 'AKIDORACLE', secretKey: 'oracle/secret+KEY' };
const region = 'eu-west-3';
const service = 'replication';

const smithy = new SignatureV4({
  credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretKey },
  region,
  service,
  sha256: NodeSha256,
  uriEscapePath: true,
});

describe('cross-check against @smithy/signature-v4 (AWS4_SCHEME)', () => {
  const seeds = Array.from({ length: 40 }, (_, i) => 1000 + i * 7919);

  it.each(seeds)('seed %i: signRequest produces the same headers as smithy', async (seed) => {
    const { request, smithyRequest } = randomRequest(seed);
    const now = new Date(Date.UTC(2024, 1, 29, 23, 59, 58 - (seed % 50)));
    const expected = await smithy.sign(smithyRequest, { signingDate: now });
    expect(signRequest(AWS4_SCHEME, request, credentials, { region, service, now })).toEqual(expected.headers);
  });

  it.each(seeds)('seed %i: a smithy-signed request is accepted by verifyRequest', async (seed) => {
    const { request, smithyRequest } = randomRequest(seed);
    const now = new Date(Date.UTC(2025, 6, 1, 0, 0, seed % 60));
    const signed = await smithy.sign(smithyRequest, { signingDate: now });
    const result = await verifyRequest(
      AWS4_SCHEME,
      { ...request, headers: signed.headers },
      async (accessKeyId, scope) => (accessKeyId === credentials.accessKeyId ? deriveSigningKey(AWS4_SCHEME, credentials.secretKey, scope) : null),
      { region, service, now },
    );
    expect(result).toEqual({ ok: true, accessKeyId: credentials.accessKeyId });
  });

  it.each([
    ['get-utf8', '/ሴ'],
    ['get-space', '/example space/'],
  ])('%s (left out of the npm suite) signs like smithy', async (_name, path) => {
    const headers = { host: 'example.amazonaws.com' };
    const now = new Date(Date.UTC(2015, 7, 30, 12, 36, 0));
    const expected = await smithy.sign({ method: 'GET', protocol: 'https:', hostname: headers.host, path, query: {}, headers: { ...headers } }, { signingDate: now });
    expect(signRequest(AWS4_SCHEME, { method: 'GET', path, headers, body: '' }, credentials, { region, service, now })).toEqual(expected.headers);
  });
});
