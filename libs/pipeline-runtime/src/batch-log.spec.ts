import { BATCH_LOG_RETENTION_MS, IntervalGate, batchLogCutoff } from './batch-log';

describe('batch log', () => {
  it('forgets batches applied more than a week ago', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(batchLogCutoff(now).toISOString()).toBe('2026-11-16T12:00:00.000Z');
    expect(BATCH_LOG_RETENTION_MS).toBeGreaterThan(24 * 60 * 60 * 1000);
  });
});

describe('IntervalGate', () => {
  it('is due the first time, then once per interval and key', () => {
    const gate = new IntervalGate(1000);
    expect(gate.due('a', 10_000)).toBe(true);
    expect(gate.due('a', 10_999)).toBe(false);
    expect(gate.due('b', 10_999)).toBe(true);
    expect(gate.due('a', 11_000)).toBe(true);
    expect(gate.due('a', 11_500)).toBe(false);
  });
});
