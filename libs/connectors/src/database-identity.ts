import { ConnectionStringError } from './connection-string-error';
import { sourceEngineOf } from './engine';
import { postgresClientConfig } from './postgres-config';
import { sqlServerConfig } from './sql-server-config';

const OPTIONS = { encrypt: false, connectTimeoutMs: 1 };

/**
 * Which database a connection string points at, whoever logs in: `engine://host:port/database`, lower
 * case. Two replications whose sources share it share the source's change tracking. Null when unparsable.
 */
export function databaseIdentityOf(connectionString: string): string | null {
  try {
    switch (sourceEngineOf(connectionString)) {
      case 'postgres': {
        const config = postgresClientConfig(connectionString, OPTIONS);
        return `postgres://${String(config.host)}:${String(config.port)}/${String(config.database)}`.toLowerCase();
      }
      case 'sqlserver': {
        const config = sqlServerConfig(connectionString, OPTIONS);
        const instance = config.options?.instanceName ?? '';
        return `sqlserver://${config.server}:${String(config.port ?? '')}${instance}/${config.database ?? ''}`.toLowerCase();
      }
      case null:
        return null;
    }
  } catch (error) {
    if (error instanceof ConnectionStringError) return null;
    throw error;
  }
}
