export { KEY_CHARACTER_SETS, dateText, float32Text, labelsOf, mysqlColumnPlan, timeAsInterval, type KeyForm, type MysqlColumnPlan, type MysqlColumnRow } from './column-types';
export { MYSQL_DEFAULT_PORT, MYSQL_SCHEMES, SESSION_TIME_ZONE, mysqlConnectionOptions, mysqlIdentity } from './mysql-config';
export { captureSettings, privilegeProblems, reconcileRetention, settingProblems, type CaptureSettings, type RetentionCheck } from './capture-check';
export { mysqlAccess, mysqlConnectionFailure } from './mysql-access';
export { MYSQL_ERROR_KINDS, mysqlErrorKind, mysqlFailureReason } from './mysql-errors';
export { MYSQL_TYPE_SAMPLES, mysqlSourceTypes } from './source-types';
export { SYSTEM_DATABASES, databaseFilter, qualifiedName, quoteName } from './identifiers';
export { serverFlavor, type ServerFlavor } from './server-flavor';
