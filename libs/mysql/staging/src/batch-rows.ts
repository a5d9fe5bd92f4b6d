import type { TableDefinition } from '@svc/contracts';
import type { CsvChunks } from '@svc/engines';
import type { PoolConnection } from 'mysql2/promise';
import { CsvFormatError, csvRecords } from './csv-records';
import { batchTableColumns, insertValuesSql } from './staging-sql';
import { columnConverter, type StatementValue } from './staging-values';

/** Rows a multi-row INSERT carries at most. */
export const ROWS_PER_STATEMENT = 1000;
/**
 * Bytes of values an INSERT carries at most: escaped (at most twice as long) it stays well under MariaDB's default
 * max_allowed_packet of 16 MiB (MySQL 8's is 64 MiB): "a statement larger than max_allowed_packet is refused".
 */
export const VALUE_BYTES_PER_STATEMENT = 4 * 1024 * 1024;

const OPERATIONS: ReadonlySet<string> = new Set(['I', 'U', 'D']);

/** How many bytes a value adds to a statement, about: binary values are written in hex. */
function statementBytes(value: StatementValue): number {
  if (value === null) return 4;
  if (typeof value === 'number') return 8;
  if (Buffer.isBuffer(value)) return value.length * 2 + 3;
  return Buffer.byteLength(value, 'utf8') + 2;
}

/**
 * Inserts the batch's records into `target` (a quoted table name) with multi-row INSERTs, each value a parameter:
 * into the table itself for a seed's rows, into the batch table for rows to merge by key. `withOperation`: each
 * record leads with its operation (I, U or D). The records are read as they arrive; how many there were.
 */
export async function insertRecords(connection: PoolConnection, target: string, definition: TableDefinition, rows: CsvChunks, withOperation: boolean): Promise<number> {
  const { table } = definition;
  const converters = definition.columns.map((column) => columnConverter(table, column.name, column.portableType));
  const statementColumns = batchTableColumns(definition, withOperation);
  const fieldCount = statementColumns.length;
  let values: StatementValue[] = [];
  let pendingRows = 0;
  let pendingBytes = 0;
  let recordCount = 0;
  const flush = async () => {
    if (pendingRows === 0) return;
    await connection.query(insertValuesSql(target, statementColumns, pendingRows), values);
    values = [];
    pendingRows = 0;
    pendingBytes = 0;
  };
  for await (const record of csvRecords(rows)) {
    recordCount += 1;
    if (record.length !== fieldCount) throw new CsvFormatError(recordCount, `${record.length} fields where ${fieldCount} were expected`);
    let first = 0;
    if (withOperation) {
      const operation = record[0];
      if (operation === null || operation === undefined || !OPERATIONS.has(operation)) throw new CsvFormatError(recordCount, 'a change record leads with I, U or D');
      values.push(operation);
      first = 1;
    }
    for (let index = first; index < record.length; index += 1) {
      const field = record[index];
      const converter = converters[index - first];
      const value = field === null || field === undefined || converter === undefined ? null : converter(field, recordCount);
      pendingBytes += statementBytes(value);
      values.push(value);
    }
    pendingRows += 1;
    if (pendingRows >= ROWS_PER_STATEMENT || pendingBytes >= VALUE_BYTES_PER_STATEMENT) await flush();
  }
  await flush();
  return recordCount;
}
