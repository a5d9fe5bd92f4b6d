import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import { SVC4_SCHEME, verifyRequest, type SigningScope } from '@svc/signing';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { ApiError } from './api-error';
import { SigningKeySource } from './signing-key.source';

/** Verifies the SVC4-HMAC-SHA256 signature and that the access key may call the operation (DESIGN §4). */
@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly signingKeys: SigningKeySource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async authenticate(request: IncomingMessage, body: Buffer, operation: string): Promise<string> {
    const url = new URL(request.url ?? '/', 'http://gateway.invalid');
    const query: Record<string, string[]> = {};
    for (const [name, value] of url.searchParams) (query[name] ??= []).push(value);

    let allowedOperations: string[] = [];
    const lookup = async (accessKeyId: string, scope: SigningScope) => {
      const grant = await this.signingKeys.grantFor(accessKeyId, scope);
      allowedOperations = grant?.allowedOperations ?? [];
      return grant?.signingKey ?? null;
    };
    const verdict = await verifyRequest(
      SVC4_SCHEME,
      { method: request.method ?? 'POST', path: url.pathname, query, headers: request.headers, body },
      lookup,
      { region: this.config.region, service: SIGNING_SERVICE_NAME, now: new Date(), maxSkewMs: this.config.maxClockSkewMs },
    );
    if (!verdict.ok) throw new ApiError(403, [verdict.failure.message]);
    if (!allowedOperations.includes('*') && !allowedOperations.includes(operation)) {
      throw new ApiError(403, [`access key ${verdict.accessKeyId} is not allowed to call ${operation}`]);
    }
    return verdict.accessKeyId;
  }
}
