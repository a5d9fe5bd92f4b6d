import { canonicalRequest, formatAuthorization, type RequestToSign as HttpRequestToSign, type SigningScope, SVC4_SCHEME } from './core';
import { signRequest } from './sign-request';
import { calculateSignature, deriveSigningKey, sha256Hex, stringToSign } from './signature';
import { verifyHeaders, verifyRequest, verifyRequestWithoutBody, type VerifyFailureReason, type VerifyOptions } from './verify-request';

const SECRET = 'verifier-test-SECRET/value+1';
const ACCESS_KEY_ID = 'AKVERIFY';
const NOW = new Date(Date.UTC(2024, 4, 17, 8, 30, 15));
const AMZ_DATE = '20240517T083015Z';
const SCOPE: SigningScope = { date: '20240517', region: 'us-east-1', service: 'replication' };
const OPTIONS: VerifyOptions = { region: 'us-east-1', service: 'replication', now: NOW };
const BODY = '{"replicationId":"3f1c"}';

const base: HttpRequestToSign = {
  method: 'POST',
  path: '/api/AlterWarehouseReplication',
  headers: { host: 'svc.example.com', 'content-type': 'application/json', 'content-length': String(BODY.length) },
  body: BODY,
};

const lookup = async (accessKeyId: string, scope: SigningScope) =>
  accessKeyId === ACCESS_KEY_ID ? deriveSigningKey(SVC4_SCHEME, SECRET, scope) : null;

function signed(overrides: Partial<HttpRequestToSign> = {}, now = NOW): HttpRequestToSign {
  const request = { ...base, ...overrides };
  return { ...request, headers: signRequest(SVC4_SCHEME, request, { accessKeyId: ACCESS_KEY_ID, secretKey: SECRET }, { ...SCOPE, now }) };
}

/** Signs with full control over what signRequest decides itself: signed headers, scope, date and payload hash line. */
function signedManually(options: { signedHeaders: string[]; headers: Record<string, string>; scope?: SigningScope; amzDate?: string }): HttpRequestToSign {
  const scope = options.scope ?? SCOPE;
  const amzDate = options.amzDate ?? AMZ_DATE;
  const headers = { ...options.headers };
  const payloadHash = headers['x-svc-content-sha256'] ?? sha256Hex(BODY);
  const request = { ...base, headers };
  const canonical = canonicalRequest(SVC4_SCHEME, request, options.signedHeaders, payloadHash);
  const signature = calculateSignature(deriveSigningKey(SVC4_SCHEME, SECRET, scope), stringToSign(SVC4_SCHEME, amzDate, scope, canonical));
  headers['authorization'] = formatAuthorization(SVC4_SCHEME, ACCESS_KEY_ID, scope, [...options.signedHeaders].sort(), signature);
  return request;
}

function withHeaders(request: HttpRequestToSign, change: (headers: Record<string, string | string[] | undefined>) => void): HttpRequestToSign {
  const headers = { ...request.headers };
  change(headers);
  return { ...request, headers };
}

const baseHeaders = { host: 'svc.example.com', 'x-svc-date': AMZ_DATE, 'x-svc-content-sha256': sha256Hex(BODY) };

interface FailureCase {
  name: string;
  request: () => HttpRequestToSign;
  options?: Partial<VerifyOptions>;
  lookupKey?: typeof lookup;
  reason: VerifyFailureReason;
  message: RegExp;
}

const failures: FailureCase[] = [
  { name: 'no Authorization header', request: () => withHeaders(signed(), (h) => delete h['authorization']), reason: 'MissingAuthorization', message: /no Authorization header/ },
  {
    name: 'two Authorization headers',
    request: () => withHeaders(signed(), (h) => (h['authorization'] = [h['authorization'] as string, h['authorization'] as string])),
    reason: 'MalformedAuthorization',
    message: /more than one Authorization/,
  },
  {
    name: 'another algorithm',
    request: () => withHeaders(signed(), (h) => (h['authorization'] = (h['authorization'] as string).replace('SVC4-HMAC-SHA256', 'AWS4-HMAC-SHA256'))),
    reason: 'MalformedAuthorization',
    message: /must start with SVC4-HMAC-SHA256/,
  },
  {
    name: 'another terminator',
    request: () => withHeaders(signed(), (h) => (h['authorization'] = (h['authorization'] as string).replace('svc4_request', 'aws4_request'))),
    reason: 'MalformedAuthorization',
    message: /must end with svc4_request/,
  },
  { name: 'host header absent', request: () => withHeaders(signed(), (h) => delete h['host']), reason: 'MissingHeader', message: /no host header/ },
  { name: 'date header absent', request: () => withHeaders(signed(), (h) => delete h['x-svc-date']), reason: 'MissingHeader', message: /no x-svc-date header/ },
  {
    name: 'content-hash header absent',
    request: () => withHeaders(signed(), (h) => delete h['x-svc-content-sha256']),
    reason: 'MissingHeader',
    message: /no x-svc-content-sha256 header/,
  },
  {
    name: 'a signed, not required header absent',
    request: () => withHeaders(signed(), (h) => delete h['content-type']),
    reason: 'MissingHeader',
    message: /content-type header is listed in SignedHeaders but absent/,
  },
  {
    name: 'host present but not signed',
    request: () => signedManually({ headers: baseHeaders, signedHeaders: ['x-svc-content-sha256', 'x-svc-date'] }),
    reason: 'UnsignedRequiredHeader',
    message: /host header must be listed in SignedHeaders/,
  },
  {
    name: 'date present but not signed',
    request: () => signedManually({ headers: baseHeaders, signedHeaders: ['host', 'x-svc-content-sha256'] }),
    reason: 'UnsignedRequiredHeader',
    message: /x-svc-date header must be listed/,
  },
  {
    name: 'content hash present but not signed',
    request: () => signedManually({ headers: baseHeaders, signedHeaders: ['host', 'x-svc-date'] }),
    reason: 'UnsignedRequiredHeader',
    message: /x-svc-content-sha256 header must be listed/,
  },
  {
    name: 'an extra required header not signed',
    request: () => signed(),
    options: { requiredSignedHeaders: ['host', 'x-svc-date', 'x-svc-content-sha256', 'x-trace'] },
    reason: 'MissingHeader',
    message: /no x-trace header/,
  },
  {
    name: 'date header not in the basic ISO 8601 form',
    request: () => signedManually({ headers: { ...baseHeaders, 'x-svc-date': '2024-05-17T08:30:15Z' }, signedHeaders: ['host', 'x-svc-content-sha256', 'x-svc-date'] }),
    reason: 'MalformedAuthorization',
    message: /x-svc-date header must be one timestamp of the form yyyymmddThhmmssZ/,
  },
  {
    name: 'date 15 minutes and 1 second in the past, saying the server time',
    request: () => signed({}, new Date(NOW.getTime() - 15 * 60_000 - 1000)),
    reason: 'ExpiredDate',
    message: /^the x-svc-date 20240517T081514Z is more than 15 minutes away from the server time 20240517T083015Z: set the caller's clock/,
  },
  {
    name: 'date 15 minutes and 1 second in the future',
    request: () => signed({}, new Date(NOW.getTime() + 15 * 60_000 + 1000)),
    reason: 'ExpiredDate',
    message: /more than 15 minutes/,
  },
  { name: 'date outside a custom skew', request: () => signed({}, new Date(NOW.getTime() - 31_000)), options: { maxSkewMs: 30_000 }, reason: 'ExpiredDate', message: /30 seconds/ },
  {
    name: 'scope date is not the date header day',
    request: () => signedManually({ headers: baseHeaders, signedHeaders: ['host', 'x-svc-content-sha256', 'x-svc-date'], scope: { ...SCOPE, date: '20240516' } }),
    reason: 'WrongScope',
    message: /scope date 20240516 is not the day of the x-svc-date header/,
  },
  { name: 'scope region differs', request: () => signed(), options: { region: 'eu-west-1' }, reason: 'WrongScope', message: /region must be eu-west-1/ },
  { name: 'scope service differs', request: () => signed(), options: { service: 'other' }, reason: 'WrongScope', message: /service must be other/ },
  { name: 'body changed after signing', request: () => ({ ...signed(), body: `${BODY} ` }), reason: 'ContentHashMismatch', message: /does not match the SHA-256 of the body/ },
  {
    name: 'content hash header is not hex',
    request: () => signedManually({ headers: { ...baseHeaders, 'x-svc-content-sha256': 'UNSIGNED-PAYLOAD' }, signedHeaders: ['host', 'x-svc-content-sha256', 'x-svc-date'] }),
    reason: 'ContentHashMismatch',
    message: /must be one hex SHA-256 digest/,
  },
  { name: 'unknown access key', request: () => signed(), lookupKey: async () => null, reason: 'UnknownAccessKey', message: /access key in the Credential is not known/ },
  {
    name: 'signed with another secret',
    request: () => signed(),
    lookupKey: async (_id, scope) => deriveSigningKey(SVC4_SCHEME, `${SECRET}x`, scope),
    reason: 'SignatureMismatch',
    message: /signature does not match/,
  },
  {
    name: 'signature tampered',
    request: () => withHeaders(signed(), (h) => (h['authorization'] = (h['authorization'] as string).replace(/Signature=(.)/, (_m, c: string) => `Signature=${c === '0' ? '1' : '0'}`))),
    reason: 'SignatureMismatch',
    message: /signature does not match/,
  },
  { name: 'signed header value changed', request: () => withHeaders(signed(), (h) => (h['content-type'] = 'application/xml')), reason: 'SignatureMismatch', message: /signature does not match/ },
  { name: 'path changed', request: () => ({ ...signed(), path: '/api/DeleteWarehouseReplication' }), reason: 'SignatureMismatch', message: /signature does not match/ },
  { name: 'method changed', request: () => ({ ...signed(), method: 'PUT' }), reason: 'SignatureMismatch', message: /signature does not match/ },
  { name: 'query added', request: () => ({ ...signed(), query: { force: 'true' } }), reason: 'SignatureMismatch', message: /signature does not match/ },
];

describe('verifyRequest', () => {
  it('accepts a correctly signed request and names the access key', async () => {
    expect(await verifyRequest(SVC4_SCHEME, signed(), lookup, OPTIONS)).toEqual({ ok: true, accessKeyId: ACCESS_KEY_ID });
  });

  it.each([
    ['exactly 15 minutes old', -15 * 60_000],
    ['exactly 15 minutes ahead', 15 * 60_000],
  ])('accepts a date %s', async (_case, offsetMs) => {
    expect((await verifyRequest(SVC4_SCHEME, signed({}, new Date(NOW.getTime() + offsetMs)), lookup, OPTIONS)).ok).toBe(true);
  });

  it('accepts an upper-case hex content hash', async () => {
    const request = signedManually({
      headers: { ...baseHeaders, 'x-svc-content-sha256': sha256Hex(BODY).toUpperCase() },
      signedHeaders: ['host', 'x-svc-content-sha256', 'x-svc-date'],
    });
    expect(await verifyRequest(SVC4_SCHEME, request, lookup, OPTIONS)).toEqual({ ok: true, accessKeyId: ACCESS_KEY_ID });
  });

  it('passes the access key and scope of the Credential to the lookup', async () => {
    const seen: Array<[string, SigningScope]> = [];
    await verifyRequest(SVC4_SCHEME, signed(), async (id, scope) => (seen.push([id, scope]), lookup(id, scope)), OPTIONS);
    expect(seen).toEqual([[ACCESS_KEY_ID, SCOPE]]);
  });

  it.each(failures.map((failure) => [failure.name, failure] as const))('rejects: %s', async (_name, failure) => {
    const request = failure.request();
    const signatureSent = /Signature=([0-9a-f]+)/.exec(String(request.headers['authorization']))?.[1];
    const result = await verifyRequest(SVC4_SCHEME, request, failure.lookupKey ?? lookup, { ...OPTIONS, ...failure.options });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.reason).toBe(failure.reason);
    expect(result.failure.message).toMatch(failure.message);
    // Never echo the secret, the derived key or any signature.
    expect(result.failure.message).not.toContain(SECRET);
    expect(result.failure.message).not.toMatch(/[0-9a-f]{64}/i);
    if (signatureSent) expect(result.failure.message).not.toContain(signatureSent);
  });

  it('does not look the key up when a cheaper check already failed', async () => {
    const lookupSpy = jest.fn(lookup);
    await verifyRequest(SVC4_SCHEME, { ...signed(), body: 'tampered' }, lookupSpy, OPTIONS);
    await verifyRequest(SVC4_SCHEME, signed({}, new Date(NOW.getTime() - 3_600_000)), lookupSpy, OPTIONS);
    expect(lookupSpy).not.toHaveBeenCalled();
  });

  it('lets lookup errors propagate: they are not authentication failures', async () => {
    await expect(
      verifyRequest(SVC4_SCHEME, signed(), async () => Promise.reject(new Error('registry unavailable')), OPTIONS),
    ).rejects.toThrow('registry unavailable');
  });
});

describe('verifyHeaders', () => {
  const withoutBody = ({ body: _body, ...rest }: HttpRequestToSign) => rest;

  it('accepts the headers of a correctly signed request without its body, and gives the signature and the signing time', () => {
    const request = signed();
    const result = verifyHeaders(SVC4_SCHEME, withoutBody(request), OPTIONS);
    expect(result).toMatchObject({ ok: true, value: { signingDate: AMZ_DATE, signedAt: NOW, authorization: { accessKeyId: ACCESS_KEY_ID, scope: SCOPE } } });
    expect(result.ok && result.value.authorization.signature).toBe(/Signature=([0-9a-f]{64})/.exec(String(request.headers['authorization']))?.[1]);
  });

  it.each([
    ['no Authorization', () => withHeaders(signed(), (headers) => delete headers['authorization']), 'MissingAuthorization'],
    ['a malformed Authorization', () => withHeaders(signed(), (headers) => (headers['authorization'] = 'Bearer x')), 'MalformedAuthorization'],
    ['an expired date', () => signed({}, new Date(NOW.getTime() - 3_600_000)), 'ExpiredDate'],
    ['a wrong region', () => signed(), 'WrongScope', { region: 'eu-west-1' }],
  ] as const)('refuses %s from the headers alone', (_case, request, reason, options: Partial<VerifyOptions> = {}) => {
    expect(verifyHeaders(SVC4_SCHEME, withoutBody(request()), { ...OPTIONS, ...options })).toMatchObject({ ok: false, failure: { reason } });
  });
});

describe('verifyRequestWithoutBody (a request forwarded by the server that read its body)', () => {
  const withoutBody = ({ body: _body, ...rest }: HttpRequestToSign) => rest;

  it('accepts what verifyRequest accepts, the body stood for by its signed hash', async () => {
    expect(await verifyRequestWithoutBody(SVC4_SCHEME, withoutBody(signed()), lookup, OPTIONS)).toEqual({ ok: true, accessKeyId: ACCESS_KEY_ID });
  });

  it('refuses a hash other than the one signed: a forwarder cannot swap the body', async () => {
    const swapped = withHeaders(withoutBody(signed()) as HttpRequestToSign, (headers) => (headers['x-svc-content-sha256'] = sha256Hex('{"replicationId":"other"}')));
    expect(await verifyRequestWithoutBody(SVC4_SCHEME, swapped, lookup, OPTIONS)).toMatchObject({ ok: false, failure: { reason: 'SignatureMismatch' } });
  });

  it('refuses another operation, key or date than the one signed', async () => {
    const request = withoutBody(signed());
    expect(await verifyRequestWithoutBody(SVC4_SCHEME, { ...request, path: '/api/DeleteWarehouseReplication' }, lookup, OPTIONS)).toMatchObject({
      ok: false,
      failure: { reason: 'SignatureMismatch' },
    });
    const otherKey = async (_id: string, scope: SigningScope) => deriveSigningKey(SVC4_SCHEME, 'another secret', scope);
    expect(await verifyRequestWithoutBody(SVC4_SCHEME, request, otherKey, OPTIONS)).toMatchObject({ ok: false, failure: { reason: 'SignatureMismatch' } });
    expect(await verifyRequestWithoutBody(SVC4_SCHEME, request, lookup, { ...OPTIONS, now: new Date(NOW.getTime() + 3_600_000) })).toMatchObject({
      ok: false,
      failure: { reason: 'ExpiredDate' },
    });
  });

  it('needs the content hash signed and given once, even when the options would not require it', async () => {
    const unsigned = signedManually({ signedHeaders: ['host', 'x-svc-date'], headers: { ...baseHeaders } });
    const options = { ...OPTIONS, requiredSignedHeaders: ['host', 'x-svc-date'] };
    expect(await verifyRequestWithoutBody(SVC4_SCHEME, withoutBody(unsigned), lookup, options)).toMatchObject({ ok: false, failure: { reason: 'UnsignedRequiredHeader' } });
    const noHash = signedManually({ signedHeaders: ['host', 'x-svc-date'], headers: { host: baseHeaders.host, 'x-svc-date': AMZ_DATE } });
    expect(await verifyRequestWithoutBody(SVC4_SCHEME, withoutBody(noHash), lookup, options)).toMatchObject({ ok: false, failure: { reason: 'UnsignedRequiredHeader' } });
  });
});
