import { databaseAccessOf } from './engine';

/**
 * Which database a connection string points at, whoever logs in: `engine://host:port/database`, lower
 * case. Two replications whose sources share it share the source's change tracking. Null when unparsable.
 */
export function databaseIdentityOf(connectionString: string): string | null {
  return databaseAccessOf(connectionString)?.databaseIdentity(connectionString) ?? null;
}
