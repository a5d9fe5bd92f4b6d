import { defineEngine } from '@svc/engines';
import { sqlServerAccess, sqlServerSourceTypes } from '@svc/sqlserver/common';
import { serveSqlServerOnPostgres, sqlServerServedByPostgresForTests } from '@svc/sqlserver/on-postgres';
import { sqlServerEngine } from './sqlserver-engine';

// Test hook only (SVC_TEST_HOOK_SQLSERVER_ON_POSTGRES): SQL Server connections served by PostgreSQL's model of it.
const modelServer = sqlServerServedByPostgresForTests();
if (modelServer !== null) serveSqlServerOnPostgres(modelServer);

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
