export { startTdsServerDouble, type LoginError, type TdsServerBehaviour, type TdsServerDouble } from './tds-server-double';
export { MssqlDoubleError, MssqlPoolDouble, MssqlRequestDouble, MssqlTransactionDouble } from './mssql-transaction-double';
export { evaluateTsql, textOf, type TsqlValue } from '../tsql-expression.double';
