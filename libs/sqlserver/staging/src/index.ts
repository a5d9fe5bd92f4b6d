export { csvRows, CsvFormatError, type CsvField } from './csv-rows';
export * as stagingSql from './staging-sql';
