import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, Subjects } from '@svc/contracts';
import { NatsRequester } from '@svc/messaging';
import type { SigningScope } from '@svc/signing';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { ApiError } from './api-error';

export interface AccessKeyGrant {
  signingKey: Buffer;
  allowedOperations: string[];
}

/**
 * Fetches the derived signing key of an access key from the registry. The raw secret never leaves the
 * registry; the derived key is valid for one day, region and service, and is cached briefly here.
 */
@Injectable()
export class SigningKeySource {
  private readonly cache = new Map<string, { grant: AccessKeyGrant; expiresAt: number }>();

  constructor(
    private readonly requester: NatsRequester,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async grantFor(accessKeyId: string, scope: SigningScope): Promise<AccessKeyGrant | null> {
    const cacheKey = [accessKeyId, scope.date, scope.region, scope.service].join('/');
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > Date.now()) return cached.grant;

    const reply = await this.requester
      .request(Subjects.registrySigningKey, { accessKeyId, ...scope })
      .catch(() => {
        throw new ApiError(503, ['the job registry is not answering; try again shortly']);
      });
    let grant: AccessKeyGrant | null;
    if (reply.ok) {
      grant = { signingKey: Buffer.from(reply.value.signingKeyHex, 'hex'), allowedOperations: reply.value.allowedOperations };
    } else if (reply.error.code === ErrorCode.Forbidden) {
      grant = null;
    } else {
      throw new ApiError(503, ['the job registry could not check the access key; try again shortly']);
    }
    // Only grants are cached: a key created a moment ago must work at once.
    if (grant) {
      if (this.cache.size > 10000) this.cache.clear();
      this.cache.set(cacheKey, { grant, expiresAt: Date.now() + this.config.signingKeyCacheMs });
    }
    return grant;
  }
}
