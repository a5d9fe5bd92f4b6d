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
  if (isCatalogCreationRace(error)) return 'transient';
  return SQLSTATE_KINDS.find(([pattern]) => pattern.test(code))?.[1];
}

/**
 * A unique violation (23505) on the database's own catalog: two sessions made the same schema or table at the same
 * moment, and IF NOT EXISTS does not keep the slower one from failing on pg_namespace, pg_type or pg_class once the
 * faster one committed (`duplicate key value violates unique constraint "pg_namespace_nspname_index"`). It is no
 * bad value: the step run again finds the object made. PostgreSQL names the catalog in the error's schema and
 * constraint fields; the message is read too, for a server that sends only the text.
 */
export function isCatalogCreationRace(error: unknown): boolean {
  if (sqlStateOf(error) !== '23505') return false;
  const { schema, constraint, message } = error as { schema?: unknown; constraint?: unknown; message?: unknown };
  if (schema === 'pg_catalog') return true;
  if (typeof constraint === 'string' && CATALOG_INDEX.test(constraint)) return true;
  return typeof message === 'string' && new RegExp(`unique constraint "${CATALOG_INDEX.source.slice(1, -1)}"`).test(message);
}

/** The unique indexes of PostgreSQL's catalog tables are named pg_<catalog>_<columns>_index. */
const CATALOG_INDEX = /^pg_[a-z_]+_index$/;

export function sqlStateOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
