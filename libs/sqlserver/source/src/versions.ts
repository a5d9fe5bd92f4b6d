/**
 * The pipeline's versions and SQL Server's Change Tracking versions, one apart. A pipeline version `v`
 * means "every change with a CT version below v has been read" (the window [from, to) is half-open), while
 * CHANGETABLE(CHANGES t, @last) returns the changes *after* @last and CHANGE_TRACKING_MIN_VALID_VERSION is
 * the lowest @last still valid. So:
 *   - a seed that read CHANGE_TRACKING_CURRENT_VERSION() = c starts tracking at c + 1;
 *   - a read from `from` asks CHANGETABLE for the changes after from - 1;
 *   - versions below MIN_VALID_VERSION + 1 are gone.
 * CT versions are bigint: they stay in bigint arithmetic and are spliced into SQL only as plain integers.
 */
const VERSION_PATTERN = /^(0|[1-9][0-9]{0,18})$/;
const BIGINT_MAX = 2n ** 63n - 1n;

export class InvalidVersionError extends Error {
  constructor(what: string) {
    super(`${what} is not a change-tracking version (a non-negative bigint)`);
    this.name = 'InvalidVersionError';
  }
}

export function parseVersion(text: string, what: string): bigint {
  if (!VERSION_PATTERN.test(text)) throw new InvalidVersionError(what);
  const version = BigInt(text);
  if (version > BIGINT_MAX) throw new InvalidVersionError(what);
  return version;
}

/** The pipeline version a seed starts tracking at, from CHANGE_TRACKING_CURRENT_VERSION() read in its snapshot (NULL: no change yet). */
export function startVersionOf(currentVersion: bigint | null): bigint {
  return (currentVersion ?? 0n) + 1n;
}

/** CHANGETABLE's @last for a read from pipeline version `from` (from ≥ 1: every version is a seed's start or a read's end). */
export function lastSyncVersionOf(from: bigint): bigint {
  if (from < 1n) throw new InvalidVersionError('fromVersion 0');
  return from - 1n;
}

/** The pipeline's minimum valid version: a read from below it would miss purged changes. */
export function minValidVersionOf(ctMinValidVersion: bigint): bigint {
  return ctMinValidVersion + 1n;
}

/**
 * Whether the source's versions went backwards: a read from `from` has seen every change below it, so the
 * current CT version is at least from - 1 unless the database was restored, failed over to a replica that
 * was behind, or lost log shipping. Its changes from the watermark on are then not the ones the pipeline
 * has not read, and the table must be reseeded ("Change Tracking and data restore",
 * https://learn.microsoft.com/en-us/sql/relational-databases/track-changes/work-with-change-tracking-sql-server).
 */
export function versionsWentBack(from: bigint, currentVersion: bigint): boolean {
  return currentVersion + 1n < from;
}

/**
 * Where a change read ends (exclusive), from what its snapshot saw: the current CT version, the first
 * change's version and the version of the change just past the limit (null when the changes fit). The
 * window ends before that change's commit, unless the whole window up to it is one commit bigger than the
 * limit: then it ends after that commit, since a commit is never split. `limited`: the window ends before the
 * current version, so committed changes wait for the next read.
 */
export function changeWindow(currentVersion: bigint, firstVersion: bigint | null, versionPastLimit: bigint | null): { end: bigint; limited: boolean } {
  const horizon = currentVersion + 1n;
  if (firstVersion === null || versionPastLimit === null) return { end: horizon, limited: false };
  const end = versionPastLimit > firstVersion ? versionPastLimit : versionPastLimit + 1n;
  return { end, limited: end < horizon };
}
