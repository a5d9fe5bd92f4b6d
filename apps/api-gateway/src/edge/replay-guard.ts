import { Inject, Injectable } from '@nestjs/common';
import type { OperationName } from '@svc/contracts';
import type { VerifiedHeaders } from '@svc/signing';
import { ApiError } from '../api/api-error';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { ReplayCache } from './replay-cache';
import { changesState } from './state-changing-operations';

/**
 * Signatures of calls that change state, remembered at most (about 200 bytes each: some 20 MB). Reached only by
 * callers whose signature verified, at over a hundred such calls a second for the whole clock-skew window.
 */
export const REPLAY_CACHE_CAPACITY = 100_000;

export const REPLAYED_MESSAGE =
  'this signed request was already received: a signed request is accepted once. Sign the call again (a new X-Svc-Date or X-Svc-Nonce) to repeat it';

/** Refuses a call that changes state when its signature was received before, in this gateway process. */
@Injectable()
export class ReplayGuard {
  private readonly seen = new ReplayCache(REPLAY_CACHE_CAPACITY);

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  /** Called once the signature verified; a read-only operation may be sent again and is never recorded. */
  admit(operation: OperationName, headers: VerifiedHeaders, now: Date): void {
    if (!changesState(operation)) return;
    // The signature stops being valid when its date leaves the skew window: remembered until then, no longer.
    const expiresAt = headers.signedAt.getTime() + this.config.maxClockSkewMs;
    const verdict = this.seen.admit(headers.authorization.signature, expiresAt, now.getTime());
    if (verdict === 'replayed') throw new ApiError(403, [REPLAYED_MESSAGE]);
    if (verdict === 'full') {
      throw new ApiError(503, ['the gateway is busy: too many calls that change state were received in the last minutes; try again shortly'], {
        'Retry-After': '60',
      });
    }
  }
}
