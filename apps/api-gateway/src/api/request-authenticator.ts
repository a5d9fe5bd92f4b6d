import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import type { OperationName, SignedCall } from '@svc/contracts';
import { SVC4_SCHEME, verifyBodyHash, verifyHeaders, type VerifiedHeaders, type VerifyOptions } from '@svc/signing';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { hostIsAllowed } from '../edge/allowed-hosts';
import { ApiError } from './api-error';
import { headersAsSent, queryAsSent, repeatedSigningHeader } from './request-headers';
import { SignatureCheck } from './signature-check';
import { signedCallOf } from './signed-call';

/** Every header of the SVC4 scheme starts so (X-Svc-Date, X-Svc-Content-Sha256). */
const SCHEME_HEADER_PREFIX = 'x-svc-';

export interface AuthenticatedCaller {
  accessKeyId: string;
  /** The verified signature and its date, which the replay guard remembers. */
  signature: VerifiedHeaders;
  /** The call as signed, for the registry to verify again with each operation. */
  signed: SignedCall;
}

/**
 * Checks the SVC4-HMAC-SHA256 signature (DESIGN §4): what needs no key here (headers, date, scope, Host, the body
 * against its signed hash), the signature itself and the key's right to the operation by the registry, which alone
 * holds the secrets.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly signatures: SignatureCheck,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * What can be refused from the headers alone, before the body is read: no or a malformed Authorization, a
   * signing header given twice, a missing, unsigned or out-of-range X-Svc-Date, a wrong scope, a Host the gateway
   * does not answer to. A caller without a well-formed signature costs no buffering or hashing of its body.
   */
  checkBeforeBody(request: IncomingMessage, now = new Date()): VerifiedHeaders {
    const headers = headersAsSent(request.rawHeaders);
    if (headers['authorization'] === undefined) throw new ApiError(403, ['the request has no Authorization header']);
    const repeated = repeatedSigningHeader(headers, SCHEME_HEADER_PREFIX);
    if (repeated !== null) throw new ApiError(403, [`the ${repeated} header is given more than once; send it once`]);
    const verdict = verifyHeaders(SVC4_SCHEME, { method: request.method ?? 'POST', path: request.url ?? '/', headers }, this.verifyOptions(now));
    if (!verdict.ok) throw new ApiError(403, [verdict.failure.message]);
    this.refuseHostNotAllowed(headers['host']?.[0]);
    return verdict.value;
  }

  async authenticate(request: IncomingMessage, body: Buffer, operation: OperationName): Promise<AuthenticatedCaller> {
    const signature = this.checkBeforeBody(request);
    const received = {
      method: request.method ?? 'POST',
      path: new URL(request.url ?? '/', 'http://gateway.invalid').pathname,
      query: queryAsSent(request.url ?? '/'),
      headers: headersAsSent(request.rawHeaders),
    };
    const bodyHash = verifyBodyHash(SVC4_SCHEME, { ...received, body });
    if (!bodyHash.ok) throw new ApiError(403, [bodyHash.failure.message]);
    const signed = signedCallOf(received, signature);
    const { accessKeyId } = await this.signatures.check(operation, signed);
    return { accessKeyId, signature, signed };
  }

  private verifyOptions(now: Date): VerifyOptions {
    return { region: this.config.region, service: SIGNING_SERVICE_NAME, now, maxSkewMs: this.config.maxClockSkewMs };
  }

  private refuseHostNotAllowed(host: string | undefined): void {
    const allowed = this.config.allowedHosts;
    if (allowed === undefined || hostIsAllowed(host, allowed)) return;
    throw new ApiError(403, [`the request is signed for Host '${(host ?? '').slice(0, 100)}', which is not one of the names this gateway answers to (SVC_ALLOWED_HOSTS)`]);
  }
}
