import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import { ErrorCode, guardSignatureCheckRequest, rpcError, rpcOk, type OperationName, type RpcReply, type SignatureCheckReply, type SignedCall } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { AccessKeyRepository, type AccessKeySecret, type AccessKeyStore } from '@svc/registry-store';
import { SVC4_SCHEME, deriveSigningKey, verifyRequestWithoutBody, type SigningScope, type VerifyFailure, type VerifyOptions } from '@svc/signing';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { replyingOnFailure } from '../rpc/unexpected-failure';
import { stoppedKeyMessage } from './key-refusals';

/** One answer for an unknown access key and a wrong signature, so that a caller cannot tell which key ids exist. */
export const SIGNATURE_REFUSED_MESSAGE =
  'the request signature does not match, or the access key is not known; check the access key id, the secret key and how the request is signed';

export type SignatureVerdict = { ok: true; accessKeyId: string; allowedOperations: string[] } | { ok: false; messages: string[] };

const API_PATH = /^\/api\/([^/]+)\/?$/;

/** The operation a signed path names (`/api/<Operation>`, as the gateway routes it), or null. */
export function operationOfPath(path: string): string | null {
  const segment = API_PATH.exec(path)?.[1];
  if (segment === undefined) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * Proves who calls: the registry verifies each call's signature itself, with secrets that never leave it, so that a
 * message on the bus speaks for an access key only when that key signed the call, and only for the operation signed.
 * Whoever holds the gateway's bus identity therefore acts as no one. The gateway has checked the body against the
 * signed hash; what is verified here is everything else the signature covers.
 */
@Injectable()
export class SignatureVerifier {
  /** What an unknown key's signature is checked with: the same HMAC work as a known key's, never a match. */
  private readonly unknownKeyStandIn = randomBytes(32);

  constructor(
    @Inject(AccessKeyRepository) private readonly keys: Pick<AccessKeyStore, 'find'>,
    @Inject(REGISTRY_CONFIG) private readonly config: Pick<RegistryConfig, 'region' | 'maxClockSkewMs'>,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  /** The gateway's question before it reads a body: which key signed this call, and may it call the operation? */
  checkSignature(message: unknown): Promise<RpcReply<SignatureCheckReply>> {
    return replyingOnFailure(this.logger, { request: 'signature check' }, async () => {
      const guarded = guardSignatureCheckRequest(message);
      if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
      const verdict = await this.verify(guarded.value.operation, guarded.value.signed);
      if (!verdict.ok) return rpcError(ErrorCode.Forbidden, verdict.messages);
      return rpcOk({ accessKeyId: verdict.accessKeyId, allowedOperations: verdict.allowedOperations });
    });
  }

  async verify(operation: OperationName, signed: SignedCall, now = new Date()): Promise<SignatureVerdict> {
    if (operationOfPath(signed.path) !== operation) return { ok: false, messages: [`the signed request is not a call of ${operation}`] };
    const looked: { key?: AccessKeySecret | null } = {};
    const lookup = (secretOf: (key: AccessKeySecret) => string | undefined) => async (accessKeyId: string, scope: SigningScope) => {
      looked.key ??= await this.keys.find(accessKeyId, { withStopped: true });
      const secret = looked.key === null ? undefined : secretOf(looked.key);
      return secret === undefined ? this.unknownKeyStandIn : deriveSigningKey(SVC4_SCHEME, secret, scope);
    };
    const request = { method: signed.method, path: signed.path, query: signed.query, headers: signed.headers };
    const options: VerifyOptions = { region: this.config.region, service: SIGNING_SERVICE_NAME, now, maxSkewMs: this.config.maxClockSkewMs };
    let verdict = await verifyRequestWithoutBody(SVC4_SCHEME, request, lookup((key) => key.secretKey), options);
    // A key being rotated: a client not yet moved to the new secret still signs with the replaced one until the overlap ends.
    if (!verdict.ok && looked.key?.previousSecretKey !== undefined) {
      verdict = await verifyRequestWithoutBody(SVC4_SCHEME, request, lookup((key) => key.previousSecretKey), options);
    }
    if (!verdict.ok) return { ok: false, messages: [messageFor(verdict.failure)] };
    // The signature held: its holder may learn that the key no longer acts, and why.
    if (looked.key?.stopped !== undefined) return { ok: false, messages: [stoppedKeyMessage(verdict.accessKeyId, looked.key.stopped)] };
    const allowed = looked.key?.allowedOperations;
    if (allowed === undefined) return { ok: false, messages: [SIGNATURE_REFUSED_MESSAGE] };
    if (!allowed.includes('*') && !allowed.includes(operation)) {
      return { ok: false, messages: [`access key ${verdict.accessKeyId} is not allowed to call ${operation}`] };
    }
    return { ok: true, accessKeyId: verdict.accessKeyId, allowedOperations: allowed };
  }
}

function messageFor(failure: VerifyFailure): string {
  return failure.reason === 'UnknownAccessKey' || failure.reason === 'SignatureMismatch' ? SIGNATURE_REFUSED_MESSAGE : failure.message;
}
