import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import type { OperationName } from '@svc/contracts';
import { SVC4_SCHEME, verifyHeaders, verifyRequest, type SigningScope, type VerifiedHeaders, type VerifyFailure, type VerifyOptions } from '@svc/signing';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { hostIsAllowed } from '../edge/allowed-hosts';
import { ApiError } from './api-error';
import { headersAsSent, queryAsSent, repeatedSigningHeader } from './request-headers';
import { SigningKeySource } from './signing-key.source';

/** Every header of the SVC4 scheme starts so (X-Svc-Date, X-Svc-Content-Sha256). */
const SCHEME_HEADER_PREFIX = 'x-svc-';

/** One answer for an unknown access key and a wrong signature, so that a caller cannot tell which key ids exist. */
export const SIGNATURE_REFUSED_MESSAGE =
  'the request signature does not match, or the access key is not known; check the access key id, the secret key and how the request is signed';

export interface AuthenticatedCaller {
  accessKeyId: string;
  /** The verified signature and its date, which the replay guard remembers. */
  signature: VerifiedHeaders;
}

/** Verifies the SVC4-HMAC-SHA256 signature and that the access key may call the operation (DESIGN §4). */
@Injectable()
export class RequestAuthenticator {
  /** The key an unknown access key's signature is checked with: it costs the same HMAC as a known one and never matches. */
  private readonly unknownKeyStandIn = randomBytes(32);

  constructor(
    private readonly signingKeys: SigningKeySource,
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
    const now = new Date();
    const signature = this.checkBeforeBody(request, now);
    const url = new URL(request.url ?? '/', 'http://gateway.invalid');
    const query = queryAsSent(request.url ?? '/');
    const headers = headersAsSent(request.rawHeaders);

    let allowedOperations: string[] = [];
    let keyKnown = false;
    let previousKey: Buffer | undefined;
    const lookup = async (accessKeyId: string, scope: SigningScope) => {
      const grant = await this.signingKeys.grantFor(accessKeyId, scope);
      keyKnown = grant !== null;
      allowedOperations = grant?.allowedOperations ?? [];
      previousKey = grant?.previousSigningKey;
      return grant?.signingKey ?? this.unknownKeyStandIn;
    };
    const signed = { method: request.method ?? 'POST', path: url.pathname, query, headers, body };
    let verdict = await verifyRequest(SVC4_SCHEME, signed, lookup, this.verifyOptions(now));
    // A key being rotated: a client not yet moved to the new secret still signs with the replaced one until the overlap ends.
    const replaced = previousKey;
    if (!verdict.ok && replaced !== undefined) verdict = await verifyRequest(SVC4_SCHEME, signed, async () => replaced, this.verifyOptions(now));
    if (!verdict.ok) throw new ApiError(403, [messageFor(verdict.failure)]);
    if (!keyKnown) throw new ApiError(403, [SIGNATURE_REFUSED_MESSAGE]);
    if (!allowedOperations.includes('*') && !allowedOperations.includes(operation)) {
      throw new ApiError(403, [`access key ${verdict.accessKeyId} is not allowed to call ${operation}`]);
    }
    return { accessKeyId: verdict.accessKeyId, signature };
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

function messageFor(failure: VerifyFailure): string {
  return failure.reason === 'UnknownAccessKey' || failure.reason === 'SignatureMismatch' ? SIGNATURE_REFUSED_MESSAGE : failure.message;
}
