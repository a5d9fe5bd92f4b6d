import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import { SVC4_SCHEME, verifyRequest, type SigningScope } from '@svc/signing';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { ApiError } from './api-error';
import { headersAsSent, queryAsSent, repeatedSigningHeader } from './request-headers';
import { SigningKeySource } from './signing-key.source';

/** Every header of the SVC4 scheme starts so (X-Svc-Date, X-Svc-Content-Sha256). */
const SCHEME_HEADER_PREFIX = 'x-svc-';

/** Verifies the SVC4-HMAC-SHA256 signature and that the access key may call the operation (DESIGN §4). */
@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly signingKeys: SigningKeySource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * What can be refused from the headers alone, before the body is read: no Authorization at all, or a signing
   * header given twice. A caller without a signature costs no buffering or hashing of its body.
   */
  refuseBeforeBody(request: IncomingMessage): void {
    const headers = headersAsSent(request.rawHeaders);
    if (headers['authorization'] === undefined) throw new ApiError(403, ['the request has no Authorization header']);
    const repeated = repeatedSigningHeader(headers, SCHEME_HEADER_PREFIX);
    if (repeated !== null) throw new ApiError(403, [`the ${repeated} header is given more than once; send it once`]);
  }

  async authenticate(request: IncomingMessage, body: Buffer, operation: string): Promise<string> {
    this.refuseBeforeBody(request);
    const url = new URL(request.url ?? '/', 'http://gateway.invalid');
    const query = queryAsSent(request.url ?? '/');
    const headers = headersAsSent(request.rawHeaders);

    let allowedOperations: string[] = [];
    const lookup = async (accessKeyId: string, scope: SigningScope) => {
      const grant = await this.signingKeys.grantFor(accessKeyId, scope);
      allowedOperations = grant?.allowedOperations ?? [];
      return grant?.signingKey ?? null;
    };
    const verdict = await verifyRequest(
      SVC4_SCHEME,
      { method: request.method ?? 'POST', path: url.pathname, query, headers, body },
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
