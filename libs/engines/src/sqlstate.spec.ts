import { isCatalogCreationRace, sqlStateErrorKind } from './sqlstate';

/** pg's DatabaseError carries the server's fields: code, schema, table, constraint (node_modules/pg-protocol/src/parser.ts). */
const pgError = (code: string, message: string, fields: Record<string, string> = {}) => Object.assign(new Error(message), { code, ...fields });

describe('a race creating one schema or table', () => {
  // PostgreSQL: concurrent CREATE SCHEMA/TABLE IF NOT EXISTS can still fail the slower session on the catalog's unique
  // index once the faster one committed (the IF NOT EXISTS check ran before the other's row was visible); the error is
  // reported as a unique violation on the catalog table, e.g. seen in this project's suite:
  // `duplicate key value violates unique constraint "pg_namespace_nspname_index"` (issue 21, item 26).
  const schemaRace = pgError('23505', 'duplicate key value violates unique constraint "pg_namespace_nspname_index"', { schema: 'pg_catalog', table: 'pg_namespace', constraint: 'pg_namespace_nspname_index' });
  const typeRace = pgError('23505', 'duplicate key value violates unique constraint "pg_type_typname_nsp_index"', { schema: 'pg_catalog', table: 'pg_type', constraint: 'pg_type_typname_nsp_index' });
  const textOnly = pgError('23505', 'duplicate key value violates unique constraint "pg_class_relname_nsp_index"');

  it.each([
    ['on pg_namespace', schemaRace],
    ['on pg_type', typeRace],
    ['named only in the message', textOnly],
  ])('is transient (retried), not a bad value: %s', (_name, error) => {
    expect(isCatalogCreationRace(error)).toBe(true);
    expect(sqlStateErrorKind(error)).toBe('transient');
  });

  it("leaves a user table's unique violation a data error", () => {
    const duplicateKey = pgError('23505', 'duplicate key value violates unique constraint "orders_pkey"', { schema: 'sales', table: 'orders', constraint: 'orders_pkey' });
    expect(isCatalogCreationRace(duplicateKey)).toBe(false);
    expect(sqlStateErrorKind(duplicateKey)).toBe('invalid-data');
  });
});
