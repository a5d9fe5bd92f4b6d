import type { PipelineEngine } from '@svc/engines';
import { sqlServerErrorKind } from './sql-server-errors';

/**
 * SQL Server: connection strings are validated and probed at Create and Alter, and its driver errors are
 * understood, but no connector moves rows yet (source and staging come with Change Tracking support).
 */
export const sqlServerEngine: PipelineEngine = {
  displayName: 'SQL Server',
  errorKind: sqlServerErrorKind,
};
