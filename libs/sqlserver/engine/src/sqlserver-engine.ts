import type { PipelineEngine } from '@svc/engines';
import { createSqlServerSource } from '@svc/sqlserver/source';
import { createSqlServerStaging } from '@svc/sqlserver/staging';
import { sqlServerErrorKind } from './sql-server-errors';

/** SQL Server as source (native Change Tracking) and staging; the warehouse is another engine's role. */
export const sqlServerEngine: PipelineEngine = {
  displayName: 'SQL Server',
  errorKind: sqlServerErrorKind,
  openSource: (connectionString, encrypt, pool, dial) => createSqlServerSource(connectionString, { encrypt, ...(pool && { pool }), ...(dial && { dial }) }),
  openStaging: (connectionString, encrypt, pool, dial) => createSqlServerStaging(connectionString, { encrypt, ...(pool && { pool }), ...(dial && { dial }) }),
};
