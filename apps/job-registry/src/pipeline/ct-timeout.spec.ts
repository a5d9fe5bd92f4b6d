import { ctTimeoutMinutes, levelAfterCancel, overdueVerdict, type InFlightWork } from './ct-timeout';

const MINUTE = 60000;
const settings = { minuteMs: MINUTE, staleWorkMs: 15 * MINUTE, unlimitedCycleMs: 24 * 60 * MINUTE };
const START = new Date(Date.UTC(2026, 10, 23, 8, 0, 0));
const at = (minutes: number) => new Date(START.getTime() + minutes * MINUTE);

function cycle(level: number): InFlightWork {
  return { kind: 'changes', since: START, progressAt: START, ctTimeoutLevel: level };
}

describe('CtProcessTimeoutInMinutes doubling', () => {
  it('runs the sequence 30 → 60 → 120 → none → back to 30 after a success', () => {
    // Each cancel moves one level up; a success (completeChanges) stores level 0 again.
    const limits: (number | null)[] = [];
    let level = 0;
    for (let cancels = 0; cancels < 4; cancels += 1) {
      limits.push(ctTimeoutMinutes(30, level));
      level = levelAfterCancel(level);
    }
    const afterSuccess = 0;
    limits.push(ctTimeoutMinutes(30, afterSuccess));
    expect(limits).toEqual([30, 60, 120, null, 30]);
  });

  it('stays without a limit after more cancels', () => {
    expect(levelAfterCancel(3)).toBe(3);
    expect(ctTimeoutMinutes(30, levelAfterCancel(3))).toBeNull();
  });

  it.each([
    [0, 30, null],
    [0, 30.01, 'cancel'],
    [1, 59, null],
    [1, 61, 'cancel'],
    [2, 119, null],
    [2, 121, 'cancel'],
    [3, 600, null],
  ] as const)('a change cycle at level %i running %f minutes → %s', (level, minutes, verdict) => {
    expect(overdueVerdict(at(minutes), cycle(level), 30, settings)).toBe(verdict);
  });

  it('uses the configured value of the replication', () => {
    expect(overdueVerdict(at(6), cycle(0), 5, settings)).toBe('cancel');
    expect(overdueVerdict(at(9), cycle(1), 5, settings)).toBeNull();
  });

  it('releases a cycle without a limit only after the safety net (a lost message)', () => {
    expect(overdueVerdict(at(24 * 60 + 1), cycle(3), 30, settings)).toBe('stale');
  });

  it('never cancels a seed by the change-tracking timeout; a seed without progress is stale', () => {
    const seed: InFlightWork = { kind: 'seed', since: START, progressAt: at(100), ctTimeoutLevel: 0 };
    expect(overdueVerdict(at(110), seed, 30, settings)).toBeNull();
    expect(overdueVerdict(at(116), seed, 30, settings)).toBe('stale');
  });
});
