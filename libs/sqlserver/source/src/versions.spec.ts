import { InvalidVersionError, changeWindow, lastSyncVersionOf, minValidVersionOf, parseVersion, startVersionOf, versionsWentBack } from './versions';

describe('pipeline versions against Change Tracking versions', () => {
  it('starts tracking after the version a seed read, and reads after the version before the watermark (CHANGETABLE is exclusive of @last)', () => {
    expect(startVersionOf(41n)).toBe(42n);
    expect(startVersionOf(null)).toBe(1n);
    // A seed at CT version 41 starts at 42; the first read asks for changes after 41: none is skipped or read twice.
    expect(lastSyncVersionOf(startVersionOf(41n))).toBe(41n);
    expect(() => lastSyncVersionOf(0n)).toThrow(InvalidVersionError);
  });

  it('needs a reseed exactly when @last is below CHANGE_TRACKING_MIN_VALID_VERSION', () => {
    const ctMin = 100n;
    const pipelineMin = minValidVersionOf(ctMin);
    expect(pipelineMin).toBe(101n);
    // from = 101 reads after 100 = the minimum valid @last: still valid; from = 100 reads after 99: purged.
    expect(lastSyncVersionOf(101n) >= ctMin).toBe(true);
    expect(lastSyncVersionOf(100n) >= ctMin).toBe(false);
  });

  // https://learn.microsoft.com/en-us/sql/relational-databases/system-functions/change-tracking-current-version-transact-sql:
  // the version of the last committed transaction; CHANGETABLE(CHANGES t, @last) returns the changes committed after
  // @last. So a window ending at current + 1 has read every committed change, and one ending below it has left some
  // for the next read (`limited`), which the extractor reads as the next batch of the same cycle.
  it('ends a window after the current version when the changes fit the limit: nothing is left for a next batch', () => {
    expect(changeWindow(50n, 12n, null)).toEqual({ end: 51n, limited: false });
    expect(changeWindow(50n, null, null)).toEqual({ end: 51n, limited: false });
  });

  it('ends a window before the commit of the change past the limit, never splitting a commit, and says more are waiting', () => {
    expect(changeWindow(50n, 12n, 30n)).toEqual({ end: 30n, limited: true });
    // The first commit alone holds more changes than the limit: the window takes all of it…
    expect(changeWindow(50n, 12n, 12n)).toEqual({ end: 13n, limited: true });
    // …and when that commit is the newest, nothing is waiting.
    expect(changeWindow(50n, 50n, 50n)).toEqual({ end: 51n, limited: false });
  });

  it('tells versions that went backwards (a restore or failover) from a source with nothing new yet', () => {
    // Watermark 60 has read every change below 60: a current version of 59 is where it was, 58 is behind it.
    expect(versionsWentBack(60n, 59n)).toBe(false);
    expect(versionsWentBack(60n, 58n)).toBe(true);
  });

  it.each(['', '-1', '01', '1.5', '9223372036854775808', "1; DROP TABLE x"])('refuses %p as a version', (text) => {
    expect(() => parseVersion(text, 'v')).toThrow(InvalidVersionError);
  });

  it('keeps bigint versions exact', () => {
    expect(parseVersion('9223372036854775807', 'v')).toBe(9223372036854775807n);
  });
});
