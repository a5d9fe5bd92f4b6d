import type { ListedTable, RetentionPeriod, TableRef } from '@svc/contracts';
import type { CaptureCheck, ProbeOptions } from '@svc/engines';
import { UNSUPPORTED_CONNECTION_STRING, databaseAccessOf } from './engine';

/** The source's user tables with their primary-key columns; throws when the source cannot be read. */
export async function listSourceTables(connectionString: string, options: ProbeOptions): Promise<ListedTable[]> {
  const access = databaseAccessOf(connectionString);
  if (access === null) throw new Error(UNSUPPORTED_CONNECTION_STRING);
  return access.listTables(connectionString, options);
}

/**
 * Whether the changes of these (keyed, replicated) tables can be captured with the connection string's login, and how
 * (CaptureCheck), keeping the source's change history at least `retention` where the engine's is the server's; nothing
 * to say for an engine without the check. Throws when the source cannot be read.
 */
export async function checkSourceCapture(connectionString: string, options: ProbeOptions, tables: readonly TableRef[], retention?: RetentionPeriod): Promise<CaptureCheck> {
  const access = databaseAccessOf(connectionString);
  if (access === null) throw new Error(UNSUPPORTED_CONNECTION_STRING);
  return access.checkCapture ? access.checkCapture(connectionString, options, tables, retention) : { problems: [], note: '' };
}
