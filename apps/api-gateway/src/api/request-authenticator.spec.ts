import type { IncomingMessage } from 'node:http';
import type { GatewayConfig } from '../config/gateway-config';
import { ApiError } from './api-error';
import { RequestAuthenticator } from './request-authenticator';
import type { SigningKeySource } from './signing-key.source';

const AUTHORIZATION = 'SVC4-HMAC-SHA256 Credential=K/20240517/us-east-1/replication/svc4_request, SignedHeaders=host;x-svc-date, Signature=ab';

function refusal(rawHeaders: string[]): ApiError | null {
  const authenticator = new RequestAuthenticator({} as SigningKeySource, {} as GatewayConfig);
  try {
    authenticator.refuseBeforeBody({ rawHeaders } as IncomingMessage);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('RequestAuthenticator.refuseBeforeBody', () => {
  it('refuses a request without Authorization from its headers alone', () => {
    expect(refusal(['Host', 'h', 'Content-Length', '1048576'])).toEqual(new ApiError(403, ['the request has no Authorization header']));
  });

  it('refuses a repeated signing header', () => {
    expect(refusal(['Authorization', AUTHORIZATION, 'X-Svc-Date', '1', 'X-Svc-Date', '2'])?.messages).toEqual([
      'the x-svc-date header is given more than once; send it once',
    ]);
  });

  it('lets a request with one Authorization go on to have its body read and its signature checked', () => {
    expect(refusal(['Host', 'h', 'Authorization', AUTHORIZATION])).toBeNull();
  });
});
