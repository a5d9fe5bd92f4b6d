import type { IncomingMessage } from 'node:http';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import type { OperationName } from '@svc/contracts';
import { SVC4_SCHEME, deriveSigningKey, signRequest, type SigningScope } from '@svc/signing';
import type { GatewayConfig } from '../config/gateway-config';
import { parseAllowedHosts } from '../edge/allowed-hosts';
import { ApiError } from './api-error';
import { RequestAuthenticator, SIGNATURE_REFUSED_MESSAGE } from './request-authenticator';
import type { SigningKeySource } from './signing-key.source';

const KEY = { accessKeyId: 'SVCUNITKEY0000000001', secretKey: 'unit-secret-key-0123456789' };
const REGION = 'us-east-1';
const CONFIG = { region: REGION, maxClockSkewMs: 15 * 60_000 } as GatewayConfig;
const AUTHORIZATION = 'SVC4-HMAC-SHA256 Credential=K/20240517/us-east-1/replication/svc4_request, SignedHeaders=host;x-svc-date, Signature=ab';

const knownKeys: Pick<SigningKeySource, 'grantFor'> = {
  grantFor: (accessKeyId: string, scope: SigningScope) =>
    Promise.resolve(accessKeyId === KEY.accessKeyId ? { signingKey: deriveSigningKey(SVC4_SCHEME, KEY.secretKey, scope), allowedOperations: ['*'] } : null),
};

function authenticatorWith(config: GatewayConfig = CONFIG): RequestAuthenticator {
  return new RequestAuthenticator(knownKeys as SigningKeySource, config);
}

interface SignedCall {
  request: IncomingMessage;
  body: Buffer;
}

function signedCall(operation: OperationName, options: { secretKey?: string; accessKeyId?: string; host?: string; body?: string; now?: Date } = {}): SignedCall {
  const body = Buffer.from(options.body ?? '{}');
  const path = `/api/${operation}`;
  const headers = signRequest(
    SVC4_SCHEME,
    { method: 'POST', path, headers: { host: options.host ?? 'gateway.example.com', 'content-type': 'application/json', 'content-length': String(body.length) }, body },
    { accessKeyId: options.accessKeyId ?? KEY.accessKeyId, secretKey: options.secretKey ?? KEY.secretKey },
    { region: REGION, service: SIGNING_SERVICE_NAME, ...(options.now && { now: options.now }) },
  );
  return { request: { method: 'POST', url: path, rawHeaders: Object.entries(headers).flat() } as unknown as IncomingMessage, body };
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
  it('gives an unknown access key and a wrong secret one and the same answer', async () => {
    const authenticator = authenticatorWith();
    const unknown = await refusalOf(authenticator, 'ListWarehouseReplications', signedCall('ListWarehouseReplications', { accessKeyId: 'SVCNOSUCHKEY00000000' }));
    const wrongSecret = await refusalOf(authenticator, 'ListWarehouseReplications', signedCall('ListWarehouseReplications', { secretKey: 'not-the-secret' }));
    expect(unknown).toEqual(new ApiError(403, [SIGNATURE_REFUSED_MESSAGE]));
    expect(wrongSecret).toEqual(unknown);
  });

  it('names the access key and gives the verified signature and its date', async () => {
    const call = signedCall('CreateWarehouseReplication');
    const caller = await authenticatorWith().authenticate(call.request, call.body, 'CreateWarehouseReplication');
    expect(caller.accessKeyId).toBe(KEY.accessKeyId);
    expect(caller.signature.authorization.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(Math.abs(caller.signature.signedAt.getTime() - Date.now())).toBeLessThan(2000);
  });

  describe('a key being rotated (issue 19)', () => {
    const NEW_SECRET = 'rotated-secret-key-0123456789';
    const rotating = (withPrevious: boolean): Pick<SigningKeySource, 'grantFor'> => ({
      grantFor: (_accessKeyId: string, scope: SigningScope) =>
        Promise.resolve({
          signingKey: deriveSigningKey(SVC4_SCHEME, NEW_SECRET, scope),
          allowedOperations: ['*'],
          ...(withPrevious && { previousSigningKey: deriveSigningKey(SVC4_SCHEME, KEY.secretKey, scope) }),
        }),
    });

    it('accepts the replaced secret while the overlap lasts, and the new one', async () => {
      const authenticator = new RequestAuthenticator(rotating(true) as SigningKeySource, CONFIG);
      expect(await refusalOf(authenticator, 'ListWarehouseReplications', signedCall('ListWarehouseReplications'))).toBeNull();
      expect(await refusalOf(authenticator, 'ListWarehouseReplications', signedCall('ListWarehouseReplications', { secretKey: NEW_SECRET }))).toBeNull();
    });

    it('refuses the replaced secret once the overlap is over', async () => {
      const authenticator = new RequestAuthenticator(rotating(false) as SigningKeySource, CONFIG);
      expect((await refusalOf(authenticator, 'ListWarehouseReplications', signedCall('ListWarehouseReplications')))?.messages).toEqual([SIGNATURE_REFUSED_MESSAGE]);
    });
  });
});

