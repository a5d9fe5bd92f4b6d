import { ConnectionStringError } from './connection-string-error';
import { sourceEngineOf } from './engine';
import { parseServerUrl } from './server-url';
import { sqlServerDatabaseName } from './sql-server-config';

/** Database name named by a source connection string (postgres URL path, or ADO `Database=`/`Initial Catalog=`), or null. */
export function databaseNameOf(connectionString: string): string | null {
  const engine = sourceEngineOf(connectionString);
  if (engine === null) return null;
  switch (engine) {
    case 'postgres': {
      const path = parseServerUrl(connectionString)?.path ?? [];
      return path.length > 0 ? path.join('/') : null;
    }
    case 'sqlserver':
      try {
        return sqlServerDatabaseName(connectionString) ?? null;
      } catch (error) {
        if (error instanceof ConnectionStringError) return null;
        throw error;
      }
  }
}
