export { sqlServerEngine } from './sqlserver-engine';
export { sqlServerErrorKind } from './sql-server-errors';
