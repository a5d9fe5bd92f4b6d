import type { ListedTable } from '@svc/contracts';
import type { ProbeOptions } from '@svc/engines';
import { UNSUPPORTED_CONNECTION_STRING, databaseAccessOf } from './engine';

/** The source's user tables with their primary-key columns; throws when the source cannot be read. */
export async function listSourceTables(connectionString: string, options: ProbeOptions): Promise<ListedTable[]> {
  const access = databaseAccessOf(connectionString);
  if (access === null) throw new Error(UNSUPPORTED_CONNECTION_STRING);
  return access.listTables(connectionString, options);
}
