import { ConfigError } from '@svc/config';
import { loadGatewayConfig } from '../config/gateway-config';

describe('loadGatewayConfig per-key limits (issue 36)', () => {
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadGatewayConfig(env);
      return [];
    } catch (error) {
      return error instanceof ConfigError ? error.problems : ['not a ConfigError'];
    }
  };

  it('gives each key 100 calls a second, 200 at once, and 5000 signatures of the replay cache by default', () => {
    expect(loadGatewayConfig({}).keyLimits).toEqual({ ratePerSecond: 100, burst: 200, replayEntriesPerKey: 5000 });
    expect(loadGatewayConfig({ KEY_RATE_LIMIT_PER_SECOND: '5', KEY_RATE_LIMIT_BURST: '10', REPLAY_ENTRIES_PER_KEY: '50' }).keyLimits).toEqual({
      ratePerSecond: 5,
      burst: 10,
      replayEntriesPerKey: 50,
    });
  });

  it('refuses no rate, and a share larger than the whole replay cache', () => {
    expect(problemsOf({ KEY_RATE_LIMIT_PER_SECOND: '0', KEY_RATE_LIMIT_BURST: 'many', REPLAY_ENTRIES_PER_KEY: '100001' })).toEqual([
      'KEY_RATE_LIMIT_PER_SECOND: must be at least 1',
      "KEY_RATE_LIMIT_BURST: must be an integer, got 'many'",
      'REPLAY_ENTRIES_PER_KEY: must be at most 100000',
    ]);
  });
});
