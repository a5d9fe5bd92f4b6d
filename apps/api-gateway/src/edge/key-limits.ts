import type { EnvReader } from '@svc/config';

/**
 * Signatures of calls that change state, remembered at most in all (about 200 bytes each: some 20 MB), whatever
 * each key's share: the memory of the replay cache stays bounded however many keys call.
 */
export const REPLAY_CACHE_CAPACITY = 100_000;

/** What one access key may take of the gateway, so that one key can never deny another (issue 36). */
export interface KeyLimits {
  /** Signed calls a key may make per second, sustained (its token bucket's refill). */
  ratePerSecond: number;
  /** Signed calls a key may make at once (its token bucket's size). */
  burst: number;
  /** Signatures of one key's calls that change state held against replays at once: its share of REPLAY_CACHE_CAPACITY. */
  replayEntriesPerKey: number;
}

export function readKeyLimits(env: EnvReader): KeyLimits {
  return {
    ratePerSecond: env.int('KEY_RATE_LIMIT_PER_SECOND', 100, { min: 1, max: 1_000_000 }),
    burst: env.int('KEY_RATE_LIMIT_BURST', 200, { min: 1, max: 1_000_000 }),
    replayEntriesPerKey: env.int('REPLAY_ENTRIES_PER_KEY', 5000, { min: 1, max: REPLAY_CACHE_CAPACITY }),
  };
}
