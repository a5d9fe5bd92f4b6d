import { Inject, Injectable } from '@nestjs/common';
import type { OperationName } from '@svc/contracts';
import { ReplayRecordsUnavailableError, SharedReplayRecords } from '@svc/messaging';
import type { VerifiedHeaders } from '@svc/signing';
import { ApiError } from '../api/api-error';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { REPLAY_CACHE_CAPACITY } from './key-limits';
import { ReplayCache } from './replay-cache';
import { changesState } from './state-changing-operations';

export const REPLAYED_MESSAGE =
  'this signed request was already received: a signed request is accepted once. Sign the call again (a new X-Svc-Date or X-Svc-Nonce) to repeat it';

/** Unavailable shared replay records: a call that changes state is refused rather than let through unchecked. */
export const REPLAY_CHECK_UNAVAILABLE_MESSAGE =
  "the gateway cannot check for replayed calls now (NATS, or the registry's replay records, do not answer); try again shortly";

/**
 * Refuses a call that changes state when its signature was received before: by this gateway process (admit), or by
 * any replica (confirmFirst, through the shared records every replica writes to). Reached only by
 * callers whose signature verified; each access key holds at most its share of the cache (REPLAY_ENTRIES_PER_KEY), so
 * that a key sending many such calls (404s count: the signature is remembered before the registry answers) is refused
 * itself with 429, and other keys are not.
 */
@Injectable()
export class ReplayGuard {
  private readonly seen: ReplayCache;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(SharedReplayRecords) private readonly shared: Pick<SharedReplayRecords, 'claim'>,
  ) {
    this.seen = new ReplayCache(REPLAY_CACHE_CAPACITY, config.keyLimits.replayEntriesPerKey);
  }

  /**
   * After `admit`: whether another replica received the signature first (a replay sent to another gateway behind a load
   * balancer). The local cache still bounds each key's share (429) and answers a replay to this replica without a round
   * trip; the shared records are what make "accepted once" hold across replicas.
   */
  async confirmFirst(operation: OperationName, headers: VerifiedHeaders): Promise<void> {
    if (!changesState(operation)) return;
    const { accessKeyId, signature } = headers.authorization;
    const claimed = await this.shared.claim(accessKeyId, signature).catch((error: unknown) => {
      if (error instanceof ReplayRecordsUnavailableError) throw new ApiError(503, [REPLAY_CHECK_UNAVAILABLE_MESSAGE], { 'Retry-After': '5' });
      throw error;
    });
    if (claimed === 'replayed') throw new ApiError(403, [REPLAYED_MESSAGE]);
  }

  /** Called once the signature verified; a read-only operation may be sent again and is never recorded. */
  admit(operation: OperationName, headers: VerifiedHeaders, now: Date): void {
    if (!changesState(operation)) return;
    const { accessKeyId, signature } = headers.authorization;
    // The signature stops being valid when its date leaves the skew window: remembered until then, no longer.
    const expiresAt = headers.signedAt.getTime() + this.config.maxClockSkewMs;
    const verdict = this.seen.admit(accessKeyId, signature, expiresAt, now.getTime());
    if (verdict === 'replayed') throw new ApiError(403, [REPLAYED_MESSAGE]);
    if (verdict === 'keyFull') {
      const seconds = Math.max(1, Math.ceil(((this.seen.roomAt(accessKeyId) ?? now.getTime()) - now.getTime()) / 1000));
      throw new ApiError(
        429,
        [
          `too many calls that change state with this access key: the gateway holds ${this.config.keyLimits.replayEntriesPerKey} of one key's signatures at most, ` +
            `each for ${Math.round(this.config.maxClockSkewMs / 60_000)} minutes after its X-Svc-Date, against replays; try again in ${seconds} s`,
        ],
        { 'Retry-After': String(seconds) },
      );
    }
    if (verdict === 'full') {
      throw new ApiError(503, ['the gateway is busy: too many calls that change state were received in the last minutes; try again shortly'], {
        'Retry-After': '60',
      });
    }
  }
}
