export { CsvFormatError } from './csv-records';
export { DdlLockTimeoutError, createMysqlStaging, isMysqlMissingObject, type MysqlStagingOptions } from './mysql-staging';
export { StagingKeyError } from './staging-types';
export { StagingValueError } from './staging-values';
