import { databaseAccessOf } from './engine';

/** Database name named by a source connection string (postgres URL path, or ADO `Database=`/`Initial Catalog=`), or null. */
export function databaseNameOf(connectionString: string): string | null {
  return databaseAccessOf(connectionString)?.databaseName(connectionString) ?? null;
}
