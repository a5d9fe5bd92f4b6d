import type { IncomingMessage } from 'node:http';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import type { OperationName, SignatureCheckReply, SignedCall as ForwardedCall } from '@svc/contracts';
import { SVC4_SCHEME, deriveSigningKey, signRequest, verifyRequestWithoutBody } from '@svc/signing';
import type { GatewayConfig } from '../config/gateway-config';
import { parseAllowedHosts } from '../edge/allowed-hosts';
import { ApiError } from './api-error';
import { RequestAuthenticator } from './request-authenticator';
import type { SignatureCheck } from './signature-check';

const KEY = { accessKeyId: 'SVCUNITKEY0000000001', secretKey: 'unit-secret-key-0123456789' };
const REGION = 'us-east-1';
const CONFIG = { region: REGION, maxClockSkewMs: 15 * 60_000 } as GatewayConfig;
const AUTHORIZATION = 'SVC4-HMAC-SHA256 Credential=K/20240517/us-east-1/replication/svc4_request, SignedHeaders=host;x-svc-date, Signature=ab';

const REFUSED = 'refused by the registry';

/** The registry's side of the check, as it does it: the forwarded call verified without its body, with the key's secret. */
class RegistryDouble implements Pick<SignatureCheck, 'check'> {
  readonly asked: ForwardedCall[] = [];

  async check(_operation: OperationName, signed: ForwardedCall): Promise<SignatureCheckReply> {
    this.asked.push(signed);
    const lookup = async (accessKeyId: string, scope: Parameters<typeof deriveSigningKey>[2]) =>
      accessKeyId === KEY.accessKeyId ? deriveSigningKey(SVC4_SCHEME, KEY.secretKey, scope) : null;
    const verdict = await verifyRequestWithoutBody(SVC4_SCHEME, signed, lookup, { region: REGION, service: SIGNING_SERVICE_NAME, now: new Date() });
    if (!verdict.ok) throw new ApiError(403, [REFUSED]);
    return { accessKeyId: verdict.accessKeyId, allowedOperations: ['*'] };
  }
}

function authenticatorWith(config: GatewayConfig = CONFIG, registry = new RegistryDouble()): RequestAuthenticator {
  return new RequestAuthenticator(registry as unknown as SignatureCheck, config);
}

interface SignedCall {
  request: IncomingMessage;
  body: Buffer;
}

function signedCall(operation: OperationName, options: { secretKey?: string; accessKeyId?: string; host?: string; body?: string; now?: Date; sentBody?: string } = {}): SignedCall {
  const body = Buffer.from(options.body ?? '{}');
  const path = `/api/${operation}`;
  const headers = signRequest(
    SVC4_SCHEME,
    { method: 'POST', path, headers: { host: options.host ?? 'gateway.example.com', 'content-type': 'application/json', 'content-length': String(body.length) }, body },
    { accessKeyId: options.accessKeyId ?? KEY.accessKeyId, secretKey: options.secretKey ?? KEY.secretKey },
    { region: REGION, service: SIGNING_SERVICE_NAME, ...(options.now && { now: options.now }) },
  );
  const rawHeaders = [...Object.entries(headers).flat(), 'X-Unsigned-Extra', 'not for the registry'];
  return { request: { method: 'POST', url: path, rawHeaders } as unknown as IncomingMessage, body: options.sentBody === undefined ? body : Buffer.from(options.sentBody) };
}

function refusalBeforeBody(rawHeaders: string[], authenticator = authenticatorWith()): ApiError | null {
  try {
    authenticator.checkBeforeBody({ method: 'POST', url: '/api/ListWarehouseReplications', rawHeaders } as unknown as IncomingMessage);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

async function refusalOf(authenticator: RequestAuthenticator, operation: OperationName, call: SignedCall): Promise<ApiError | null> {
  try {
    await authenticator.authenticate(call.request, call.body, operation);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('RequestAuthenticator.checkBeforeBody', () => {
  it('refuses a request without Authorization from its headers alone', () => {
    expect(refusalBeforeBody(['Host', 'h', 'Content-Length', '1048576'])).toEqual(new ApiError(403, ['the request has no Authorization header']));
  });

  it('refuses a repeated signing header', () => {
    expect(refusalBeforeBody(['Authorization', AUTHORIZATION, 'X-Svc-Date', '1', 'X-Svc-Date', '2'])?.messages).toEqual([
      'the x-svc-date header is given more than once; send it once',
    ]);
  });

  it.each([
    ['an Authorization of another scheme', ['Host', 'h', 'Authorization', 'Bearer abc'], /must start with SVC4-HMAC-SHA256/],
    ['an Authorization without Signature', ['Host', 'h', 'Authorization', 'SVC4-HMAC-SHA256 Credential=K/20240517/us-east-1/replication/svc4_request'], /no SignedHeaders|no Signature/],
    ['no X-Svc-Date', ['Host', 'h', 'Authorization', AUTHORIZATION.replace('Signature=ab', `Signature=${'a'.repeat(64)}`)], /x-svc-date/],
    ['a date out of the skew window', signedCall('ListWarehouseReplications', { now: new Date(Date.now() - 3_600_000) }).request.rawHeaders, /away from the server time/],
  ])('refuses %s before the body is read', (_case, rawHeaders, message) => {
    const refusal = refusalBeforeBody(rawHeaders);
    expect(refusal?.status).toBe(403);
    expect(refusal?.messages.join(' ')).toMatch(message);
  });

  it('lets a well-formed, current signature go on to have its body read and checked', () => {
    const { request } = signedCall('ListWarehouseReplications');
    expect(refusalBeforeBody(request.rawHeaders)).toBeNull();
  });

  it('refuses a Host outside SVC_ALLOWED_HOSTS, naming the rule, and accepts the names it lists', () => {
    const strict = authenticatorWith({ ...CONFIG, allowedHosts: parseAllowedHosts('api.example.com').hosts });
    const refusal = refusalBeforeBody(signedCall('ListWarehouseReplications', { host: 'gateway.example.com' }).request.rawHeaders, strict);
    expect(refusal).toEqual(
      new ApiError(403, ["the request is signed for Host 'gateway.example.com', which is not one of the names this gateway answers to (SVC_ALLOWED_HOSTS)"]),
    );
    expect(refusalBeforeBody(signedCall('ListWarehouseReplications', { host: 'api.example.com:8443' }).request.rawHeaders, strict)).toBeNull();
  });
});

describe('RequestAuthenticator.authenticate', () => {
  it('has the registry verify the call as signed, without the body, and names the key it answers', async () => {
    const registry = new RegistryDouble();
    const call = signedCall('CreateWarehouseReplication');
    const caller = await authenticatorWith(CONFIG, registry).authenticate(call.request, call.body, 'CreateWarehouseReplication');
    expect(caller.accessKeyId).toBe(KEY.accessKeyId);
    expect(caller.signature.authorization.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(Math.abs(caller.signature.signedAt.getTime() - Date.now())).toBeLessThan(2000);
    expect(registry.asked).toEqual([caller.signed]);
    // Authorization, the date and the signed headers only: nothing the signature does not cover travels.
    expect(Object.keys(caller.signed.headers).sort()).toEqual(['authorization', ...caller.signature.authorization.signedHeaders].sort());
    expect(caller.signed).toMatchObject({ method: 'POST', path: '/api/CreateWarehouseReplication', query: {} });
  });

  it("passes the registry's refusal on: an unknown key and a wrong secret", async () => {
    const authenticator = authenticatorWith();
    for (const options of [{ accessKeyId: 'SVCNOSUCHKEY00000000' }, { secretKey: 'not-the-secret' }]) {
      expect(await refusalOf(authenticator, 'ListWarehouseReplications', signedCall('ListWarehouseReplications', options))).toEqual(new ApiError(403, [REFUSED]));
    }
  });

  it('refuses a body other than the one signed before asking the registry', async () => {
    const registry = new RegistryDouble();
    const refusal = await refusalOf(authenticatorWith(CONFIG, registry), 'ListWarehouseReplications', signedCall('ListWarehouseReplications', { sentBody: '{"x":1}' }));
    expect(refusal).toEqual(new ApiError(403, ['the x-svc-content-sha256 header does not match the SHA-256 of the body']));
    expect(registry.asked).toEqual([]);
  });
});
