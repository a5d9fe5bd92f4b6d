import { FIRST_RESTART_DELAY_MS, MAX_RESTART_DELAY_MS, RestartPolicy, STABLE_RUN_MS } from './restart-policy';

describe('RestartPolicy', () => {
  it('doubles the delay for a service that keeps crashing, up to the cap', () => {
    const policy = new RestartPolicy();
    const delays = Array.from({ length: 8 }, () => policy.delayAfterExit(500));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(delays[0]).toBe(FIRST_RESTART_DELAY_MS);
    expect(Math.max(...delays)).toBe(MAX_RESTART_DELAY_MS);
  });

  it('starts over after a run that lasted long enough to count as healthy', () => {
    const policy = new RestartPolicy();
    policy.delayAfterExit(100);
    policy.delayAfterExit(100);
    expect(policy.delayAfterExit(STABLE_RUN_MS)).toBe(FIRST_RESTART_DELAY_MS);
    expect(policy.delayAfterExit(STABLE_RUN_MS - 1)).toBe(2 * FIRST_RESTART_DELAY_MS);
  });
});
