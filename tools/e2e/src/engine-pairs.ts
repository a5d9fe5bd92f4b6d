import type { TestStack } from '@svc/system-testing';
import { openPg, type SqlTarget } from './sql-target';

export type { SqlTarget } from './sql-target';

/**
 * What the generic pipeline suite needs of an engine pair: how to reach the source (to write the
 * workload) and the warehouse (to compare), and the connection fields of a Create request.
 * Only PostgreSQL → PostgreSQL runs here; SQL Server → Redshift plugs in when MSSQL_URL / REDSHIFT_URL exist.
 */
export interface EnginePair {
  name: string;
  sourceConnectionString(stack: TestStack): string;
  stagingConnectionString(stack: TestStack): string;
  warehouse(stack: TestStack): { url: string; databaseName: string; username: string; password: string };
  openSource(stack: TestStack): Promise<SqlTarget>;
  openWarehouse(stack: TestStack): Promise<SqlTarget>;
}

export const POSTGRES_TO_POSTGRES: EnginePair = {
  name: 'PostgreSQL → PostgreSQL',
  sourceConnectionString: (stack) => stack.source.url,
  stagingConnectionString: (stack) => stack.staging.url,
  warehouse: (stack) => ({ url: 'postgres://127.0.0.1:5432', databaseName: stack.warehouse.name, username: 'postgres', password: 'unused-with-trust' }),
  openSource: (stack) => openPg(stack.source.url),
  openWarehouse: (stack) => openPg(stack.warehouse.url),
};

export const ENGINE_PAIRS: EnginePair[] = [POSTGRES_TO_POSTGRES];
