import { defineEngine } from '@svc/engines';
import { sqlServerAccess, sqlServerSourceTypes } from '@svc/sqlserver/common';
import { sqlServerEngine } from './sqlserver-engine';

/** SQL Server, as the engine list names it: source and staging. */
export const sqlServerModule = defineEngine({
  name: 'sqlserver',
  displayName: sqlServerEngine.displayName,
  roles: ['source', 'staging'],
  connectionStringForms: ['Server=…;', 'mssql://…'],
  databaseAccess: sqlServerAccess,
  pipeline: sqlServerEngine,
  defaultSchema: 'dbo',
  types: { reads: sqlServerSourceTypes },
});
