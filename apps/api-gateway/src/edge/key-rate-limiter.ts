import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../api/api-error';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { TokenBuckets } from './token-buckets';

/**
 * Each access key's own rate (KEY_RATE_LIMIT_PER_SECOND, bursts of KEY_RATE_LIMIT_BURST): a key over it is refused
 * with 429 and Retry-After, and other keys are not. Only calls whose signature verified count, so that nobody can
 * spend another key's calls by naming it.
 */
@Injectable()
export class KeyRateLimiter {
  private readonly buckets: TokenBuckets;

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {
    this.buckets = new TokenBuckets(config.keyLimits.ratePerSecond, config.keyLimits.burst);
  }

  admit(accessKeyId: string, now: Date): void {
    const waitMs = this.buckets.take(accessKeyId, now.getTime());
    if (waitMs === 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const { ratePerSecond, burst } = this.config.keyLimits;
    throw new ApiError(429, [`too many calls with this access key: it may make ${ratePerSecond} a second, ${burst} at once; try again in ${seconds} s`], {
      'Retry-After': String(seconds),
    });
  }
}
