import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, Subjects } from '@svc/contracts';
import { NatsRequester } from '@svc/messaging';
import type { SigningScope } from '@svc/signing';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { ApiError } from './api-error';

export interface AccessKeyGrant {
  signingKey: Buffer;
  allowedOperations: string[];
  /** During a rotation's overlap: the key derived from the replaced secret, which still signs. */
  previousSigningKey?: Buffer;
}

/**
 * How long an access key id the registry does not know is answered from memory. Short, so that a key created a
 * moment ago works within seconds; long enough that a caller repeating an unknown id (a flood, a misconfigured
 * client retrying) costs the registry one lookup per id every few seconds instead of one per request.
 */
export const UNKNOWN_KEY_CACHE_MS = 2000;
/** Unknown ids remembered at most; the oldest is forgotten first, so random ids cannot grow the memory. */
export const UNKNOWN_KEY_CACHE_SIZE = 1000;

/**
 * Fetches the derived signing key of an access key from the registry. The raw secret never leaves the
 * registry; the derived key is valid for one day, region and service, and is cached briefly here. Concurrent
 * lookups of one key share one registry request.
 */
@Injectable()
export class SigningKeySource {
  private readonly cache = new Map<string, { grant: AccessKeyGrant; expiresAt: number }>();
  private readonly unknown = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<AccessKeyGrant | null>>();

  constructor(
    private readonly requester: NatsRequester,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async grantFor(accessKeyId: string, scope: SigningScope): Promise<AccessKeyGrant | null> {
    const cacheKey = [accessKeyId, scope.date, scope.region, scope.service].join('/');
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > Date.now()) return cached.grant;
    const unknownUntil = this.unknown.get(cacheKey);
    if (unknownUntil !== undefined && unknownUntil > Date.now()) return null;

    const pending = this.inFlight.get(cacheKey);
    if (pending) return pending;
    const lookup = this.lookup(accessKeyId, scope, cacheKey).finally(() => this.inFlight.delete(cacheKey));
    this.inFlight.set(cacheKey, lookup);
    return lookup;
  }

  private async lookup(accessKeyId: string, scope: SigningScope, cacheKey: string): Promise<AccessKeyGrant | null> {
    const reply = await this.requester
      .request(Subjects.registrySigningKey, { accessKeyId, ...scope })
      .catch(() => {
        throw new ApiError(503, ['the job registry is not answering; try again shortly']);
      });
    let grant: AccessKeyGrant | null;
    if (reply.ok) {
      const previous = reply.value.previousSigningKeyHex;
      grant = {
        signingKey: Buffer.from(reply.value.signingKeyHex, 'hex'),
        allowedOperations: reply.value.allowedOperations,
        ...(previous !== undefined && { previousSigningKey: Buffer.from(previous, 'hex') }),
      };
    } else if (reply.error.code === ErrorCode.Forbidden || reply.error.code === ErrorCode.ValidationFailed) {
      // ValidationFailed: the key id is not one the registry could even look up, so it is not a known key.
      grant = null;
    } else {
      throw new ApiError(503, ['the job registry could not check the access key; try again shortly']);
    }
    if (grant) {
      this.unknown.delete(cacheKey);
      if (this.cache.size > 10000) this.cache.clear();
      this.cache.set(cacheKey, { grant, expiresAt: Date.now() + this.config.signingKeyCacheMs });
    } else {
      this.unknown.delete(cacheKey);
      if (this.unknown.size >= UNKNOWN_KEY_CACHE_SIZE) this.unknown.delete(this.unknown.keys().next().value ?? '');
      this.unknown.set(cacheKey, Date.now() + UNKNOWN_KEY_CACHE_MS);
    }
    return grant;
  }
}
