import type { EnvReader } from './env-reader';

/**
 * The widest MAX_CLOCK_SKEW_SECONDS: a captured signature is good for that long either side of the clock, and the
 * replay cache holds each signature as long. AWS Signature Version 4 allows 15 minutes too.
 */
export const MAX_CLOCK_SKEW_LIMIT_SECONDS = 15 * 60;

/** MAX_CLOCK_SKEW_SECONDS in milliseconds: how far X-Svc-Date may be from this server's clock (gateway and registry alike). */
export function readMaxClockSkewMs(env: EnvReader): number {
  const seconds = env.int('MAX_CLOCK_SKEW_SECONDS', MAX_CLOCK_SKEW_LIMIT_SECONDS, { min: 1 });
  if (seconds > MAX_CLOCK_SKEW_LIMIT_SECONDS) {
    env.problem(
      `MAX_CLOCK_SKEW_SECONDS: must be at most ${MAX_CLOCK_SKEW_LIMIT_SECONDS} (15 minutes, as AWS Signature Version 4): a signed request is ` +
        'accepted, and its signature kept against replays, for that long either side of the server clock',
    );
  }
  return seconds * 1000;
}
