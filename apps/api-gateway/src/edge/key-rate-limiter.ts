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

  /** Spends one of the key's calls: for a call whose signature the registry verified. */
  admit(accessKeyId: string, now: Date): void {
    this.refuseAfter(this.buckets.take(accessKeyId, now.getTime()));
  }

  /**
   * Refuses a call naming a key that has no call left, spending nothing: asked before the registry checks the
   * signature, so that a key flooding past its rate costs the registry nothing more, while a call that merely names
   * another key cannot spend that key's calls.
   */
  refuseWhenSpent(accessKeyId: string, now: Date): void {
    this.refuseAfter(this.buckets.waitFor(accessKeyId, now.getTime()));
  }

  private refuseAfter(waitMs: number): void {
    if (waitMs === 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const { ratePerSecond, burst } = this.config.keyLimits;
    throw new ApiError(429, [`too many calls with this access key: it may make ${ratePerSecond} a second, ${burst} at once; try again in ${seconds} s`], {
      'Retry-After': String(seconds),
    });
  }
}
