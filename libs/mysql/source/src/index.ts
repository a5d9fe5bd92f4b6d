export { createMysqlSource, KeyTypeError, type MysqlSourceOptions } from './mysql-source';
export { CaptureSettingError, TableRewrittenError, UnreadableLogError } from './source-errors';
