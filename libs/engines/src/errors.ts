import { tableKey, type FailureClass, type TableRef } from '@svc/contracts';

/**
 * What went wrong, in terms every engine can say: each engine maps its driver's errors into these kinds
 * (see DriverErrorMapper), and the failure classifier and the workers act on the kind, never on a driver's
 * error class or code.
 */
export type EngineErrorKind =
  /** The connection or the server failed in a way that heals by itself: lost connection, deadlock, serialization, resources, timeouts. */
  | 'transient'
  /** The attempt reached no server speaking the engine's protocol (refused, timed out, unknown host, TLS, reset): retried. */
  | 'unreachable'
  /** The database named does not exist (yet): it is being dropped and created again. */
  | 'database-missing'
  /** A control table, schema or replicated table the service itself creates was missing: it is created again on retry. */
  | 'own-object-missing'
  /** The credentials no longer work: the whole replication stops. */
  | 'authentication-failed'
  /** A table, column or schema of the replication is gone or was never there. */
  | 'object-missing'
  /** The login may not read or write an object of the replication. */
  | 'permission-denied'
  /** A value does not fit its column, or breaks a constraint. */
  | 'invalid-data'
  /** Any other statement error that retrying cannot cure. */
  | 'statement-failed'
  /** Changes after the watermark were purged (or never captured): the table must be reseeded. */
  | 'changes-purged'
  /** Change tracking of the table is not in place: only a reseed, which enables it, brings the table back. */
  | 'not-tracked'
  /** The definition handed in no longer matches the table: describe it again. */
  | 'stale-definition'
  /** The table has no primary key: it can be seeded but not tracked. */
  | 'primary-key-required'
  /** A staging or warehouse table of the replication's name exists but the service did not create it: it is not written. */
  | 'foreign-table';

/**
 * How Describe's lastError words each kind (contracts' FailureClass); null for the kinds the service words
 * itself (the error's message is its own text: a purged watermark, tracking not in place, a stale definition).
 */
export const FAILURE_CLASS_OF_KIND: Readonly<Record<EngineErrorKind, FailureClass | null>> = {
  transient: 'server-busy',
  unreachable: 'unreachable',
  'database-missing': 'object-missing',
  'own-object-missing': 'object-missing',
  'authentication-failed': 'authentication-failed',
  'object-missing': 'object-missing',
  'permission-denied': 'permission-denied',
  'invalid-data': 'data-error',
  'statement-failed': 'internal',
  'changes-purged': null,
  'not-tracked': null,
  'stale-definition': null,
  'primary-key-required': null,
  'foreign-table': null,
};

/** An engine error that says its kind; driver errors are mapped into kinds by each engine's DriverErrorMapper. */
export abstract class EngineError extends Error {
  abstract readonly kind: EngineErrorKind;
  /** The message is the service's own words (no server's words, no row value): the failure classifier gives it as the reason. */
  readonly serviceWorded: boolean = false;
  /**
   * With serviceWorded: what the reason leaves out because it may carry row values (a key's values), kept as the
   * failure's detail, which only keys allowed ERROR_DETAILS_PERMISSION read.
   */
  readonly valueDetail?: string;
}

/** The engine's reading of a driver error (pg, mssql, …); undefined when the error is none of its own. */
export type DriverErrorMapper = (error: unknown) => EngineErrorKind | undefined;

/** The kind of `error` when it is an EngineError of that kind. */
export function isEngineError<K extends EngineErrorKind>(error: unknown, kind: K): error is EngineError & { kind: K } {
  return error instanceof EngineError && error.kind === kind;
}

/**
 * An object the service itself creates in a staging or warehouse database (a control table, its schema,
 * a replicated table) was missing when a batch needed it: its database or schema was dropped and created
 * again, or someone dropped it. The connector has forgotten what it knew about that database, so a retry
 * creates the object again; never terminal.
 */
export class OwnObjectMissingError extends EngineError {
  readonly kind = 'own-object-missing';

  constructor(what: string, options: { cause: unknown }) {
    super(`${what}: ${describeCause(options.cause)} (the database or schema was recreated or the object dropped; it is created again on retry)`, options);
    this.name = 'OwnObjectMissingError';
  }
}

/** A table without a primary key is seeded, never tracked (seed §1). */
export class PrimaryKeyRequiredError extends EngineError {
  readonly kind = 'primary-key-required';

  constructor(table: TableRef) {
    super(`${tableKey(table)} has no primary key: it can be seeded but its changes are not tracked`);
    this.name = 'PrimaryKeyRequiredError';
  }
}

/** The definition handed in no longer matches the table in the source (describe the table again). */
export class StaleDefinitionError extends EngineError {
  readonly kind = 'stale-definition';

  constructor(table: TableRef, detail: string) {
    super(`the definition of ${tableKey(table)} is out of date: ${detail}`);
    this.name = 'StaleDefinitionError';
  }
}

/**
 * Changes of the table are read while its change tracking is not in place: before it was enabled, after it
 * was disabled, or after the source database (or the table, or the service's change-tracking objects) was
 * dropped and created again, which took the capture and the change history with it. Only a reseed, which
 * enables tracking again, brings the table back.
 */
export class TableNotTrackedError extends EngineError {
  readonly kind = 'not-tracked';

  constructor(table: TableRef) {
    super(`change tracking of ${tableKey(table)} is not in place in the source (never enabled, removed, or lost with a recreated database or table)`);
    this.name = 'TableNotTrackedError';
  }
}

/**
 * The watermark is below the table's minimum valid version: changes after it were purged (or were never
 * captured), so the table must be reseeded.
 */
export class ChangesPurgedError extends EngineError {
  readonly kind = 'changes-purged';

  constructor(
    table: TableRef,
    readonly fromVersion: string,
    readonly minValidVersion: string,
  ) {
    super(
      `changes of ${tableKey(table)} from version ${fromVersion} are no longer available ` +
        `(minimum valid version ${minValidVersion}): the table must be reseeded`,
    );
    this.name = 'ChangesPurgedError';
  }
}

/**
 * The source's current version is below the watermark: its versions went backwards, as they do after a
 * restore, a failover to a replica that was behind, or lost log shipping. Changes read from the watermark
 * would miss everything between the restored version and it, so the table must be reseeded.
 */
export class SourceVersionsRewoundError extends EngineError {
  readonly kind = 'changes-purged';

  constructor(
    table: TableRef,
    readonly fromVersion: string,
    readonly currentVersion: string,
  ) {
    super(
      `the source's change-tracking versions went backwards for ${tableKey(table)} (current version ${currentVersion} is below ` +
        `watermark ${fromVersion}, e.g. after a restore, a failover or lost log shipping): the table is reseeded`,
    );
    this.name = 'SourceVersionsRewoundError';
  }
}

/**
 * The source database is another incarnation than the one the watermark was read from: restored from a backup, a
 * point-in-time restore, a failover to a replica that was behind, or a database recreated under the same name. Its
 * versions may have passed the watermark again with other changes (Microsoft's example: restored to 70, updated to
 * 130, a client at 100 reads 100–130 and never learns that 70–100 differ), so the changes after the watermark cannot
 * be trusted and the table is reseeded.
 */
export class SourceIncarnationChangedError extends EngineError {
  readonly kind = 'changes-purged';

  constructor(
    table: TableRef,
    readonly watermarkIncarnation: string,
    readonly currentIncarnation: string,
  ) {
    super(
      `the source database of ${tableKey(table)} is not the one its watermark was read from (${watermarkIncarnation} then, ` +
        `${currentIncarnation} now: a restore from a backup, a failover or a database recreated under its name), so changes ` +
        `after the watermark cannot be trusted: the table is reseeded`,
    );
    this.name = 'SourceIncarnationChangedError';
  }
}

/**
 * Trigger capture failed inside a write to the source table (a renamed key column, a change table dropped by hand): the
 * write went through, as capture never fails a user's write, but its change was not recorded, so the changes after the
 * watermark are incomplete and the table is reseeded (which installs capture again).
 */
export class CaptureFailedError extends EngineError {
  readonly kind = 'changes-purged';
  override readonly serviceWorded = true;

  constructor(
    table: TableRef,
    readonly reason: string,
  ) {
    super(
      `capture of ${tableKey(table)}'s changes failed in the source (${reason}); the source's write went through, but its change was not ` +
        `recorded, so the table is reseeded, which installs capture again`,
    );
    this.name = 'CaptureFailedError';
  }
}

/**
 * Whether the watermark's incarnation and the source's current one say that the database is another one. Unknown on
 * either side (a watermark stored before incarnations were, a login that may not read them) is not a move: the check
 * that versions did not go back still holds there.
 */
export function incarnationMoved(watermarkIncarnation: string | undefined, currentIncarnation: string | null): boolean {
  return watermarkIncarnation !== undefined && watermarkIncarnation !== '' && currentIncarnation !== null && watermarkIncarnation !== currentIncarnation;
}

function describeCause(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
