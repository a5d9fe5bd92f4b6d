import { EnvReader } from '@svc/config';
import { ApiError } from '../api/api-error';
import type { GatewayConfig } from '../config/gateway-config';
import { KeyRateLimiter } from './key-rate-limiter';
import { readKeyLimits } from './key-limits';

const NOW = new Date('2026-11-28T12:00:00Z');

function refusal(action: () => void): ApiError | null {
  try {
    action();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('KeyRateLimiter (issue 36)', () => {
  const limiter = (env: Record<string, string>) => new KeyRateLimiter({ keyLimits: readKeyLimits(new EnvReader(env)) } as GatewayConfig);

  it('answers a key over its rate 429 with Retry-After in whole seconds, naming the limits', () => {
    const limits = limiter({ KEY_RATE_LIMIT_PER_SECOND: '1', KEY_RATE_LIMIT_BURST: '2' });
    expect(refusal(() => limits.admit('SVCKEY', NOW))).toBeNull();
    expect(refusal(() => limits.admit('SVCKEY', NOW))).toBeNull();
    expect(refusal(() => limits.admit('SVCKEY', NOW))).toEqual(
      new ApiError(429, ['too many calls with this access key: it may make 1 a second, 2 at once; try again in 1 s'], { 'Retry-After': '1' }),
    );
    expect(refusal(() => limits.admit('SVCOTHERKEY', NOW))).toBeNull();
  });

  it('allows 100 calls a second, 200 at once, by default', () => {
    const limits = limiter({});
    for (let call = 0; call < 200; call += 1) expect(refusal(() => limits.admit('SVCKEY', NOW))).toBeNull();
    expect(refusal(() => limits.admit('SVCKEY', NOW))?.status).toBe(429);
    expect(refusal(() => limits.admit('SVCKEY', new Date(NOW.getTime() + 10)))).toBeNull();
  });

  it('refuses a call naming a spent key before the registry is asked, and spends nothing doing so', () => {
    const limits = limiter({ KEY_RATE_LIMIT_PER_SECOND: '1', KEY_RATE_LIMIT_BURST: '2' });
    // Calls that merely name a key (their signature not yet checked) cannot spend its calls.
    for (let call = 0; call < 50; call += 1) expect(refusal(() => limits.refuseWhenSpent('SVCKEY', NOW))).toBeNull();
    expect(refusal(() => limits.admit('SVCKEY', NOW))).toBeNull();
    expect(refusal(() => limits.admit('SVCKEY', NOW))).toBeNull();
    // Spent: refused before any work, with the same answer as admit's.
    expect(refusal(() => limits.refuseWhenSpent('SVCKEY', NOW))).toEqual(
      new ApiError(429, ['too many calls with this access key: it may make 1 a second, 2 at once; try again in 1 s'], { 'Retry-After': '1' }),
    );
    expect(refusal(() => limits.refuseWhenSpent('SVCKEY', new Date(NOW.getTime() + 1000)))).toBeNull();
  });
});
