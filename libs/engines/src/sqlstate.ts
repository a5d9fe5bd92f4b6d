import type { EngineErrorKind } from './errors';

/**
 * SQLSTATE classes and codes as PostgreSQL uses them (Redshift speaks its protocol and shares them), first match wins.
 * A database that does not exist (3D000) is being dropped and created again (a recreated staging or
 * warehouse database): a name that was wrong from the start is refused by Create and Alter before anything runs.
 */
const SQLSTATE_KINDS: readonly [RegExp, EngineErrorKind][] = [
  [/^3D000$/, 'database-missing'],
  // Connection exceptions, serialization failures and deadlocks, resources, operator intervention, lock not available, system errors.
  [/^08/, 'transient'],
  [/^40001$/, 'transient'],
  [/^40P01$/, 'transient'],
  [/^53/, 'transient'],
  [/^57P0[1-3]$/, 'transient'],
  [/^57014$/, 'transient'],
  [/^55P03$/, 'transient'],
  [/^58/, 'transient'],
  [/^28/, 'authentication-failed'],
  [/^42501$/, 'permission-denied'],
  [/^(42P01|3F000|42703|42704|42883)$/, 'object-missing'],
  [/^42/, 'statement-failed'],
  [/^2[23]/, 'invalid-data'],
];

/** The kind of an error that carries a SQLSTATE (pg, and Redshift through it); undefined for any other error (or a SQLSTATE no kind names). */
export function sqlStateErrorKind(error: unknown): EngineErrorKind | undefined {
  const code = sqlStateOf(error);
  if (code === undefined) return undefined;
  return SQLSTATE_KINDS.find(([pattern]) => pattern.test(code))?.[1];
}

export function sqlStateOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
