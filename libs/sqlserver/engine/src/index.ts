export { sqlServerEngine } from './sqlserver-engine';
export { sqlServerErrorKind } from './sql-server-errors';
export { sqlServerModule } from './sqlserver-module';
