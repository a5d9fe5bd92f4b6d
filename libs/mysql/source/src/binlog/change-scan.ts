import type { ConnectionOptions } from 'mysql2';
import { dumpBinlog } from './binlog-dump';
import { EVENT, eventHeader, parseEvent, type RowsKind } from './binlog-events';
import { comparePositions, type BinlogPosition } from './binlog-position';
import type { ByteReader } from './byte-reader';
import { ddlEffect } from './ddl';
import { decodeKeyValue, mappedColumns, valueLength, type KeyDecoding, type MappedColumn } from './row-image';

/** A table whose changed keys a scan collects: where its key columns are in its rows, and how each is read. */
export interface ScanTarget {
  schema: string;
  name: string;
  keyColumns: readonly { ordinal: number; decoding: KeyDecoding; text: (raw: string) => string | null }[];
}

/** A key seen changed, as the row format's texts of its columns, and the first kind of change seen for it. */
export interface ChangedKey {
  key: (string | null)[];
  first: RowsKind;
}

export interface TableScan {
  /** Keys by their joined text, in the order first seen. */
  keys: Map<string, ChangedKey>;
  /** Row changes seen (a key changed twice counts twice): what ChangeTrackingBatchLimit bounds. */
  records: number;
  /** Where the last transaction that changed a row of the table ended; null when none did. */
  lastChange: BinlogPosition | null;
  /** Columns were appended to the table within the scan (the schema-change path describes it again). */
  columnsAdded: boolean;
  /** A statement the rows cannot be followed across (see ddl.ts); the keys are then incomplete. */
  rewritten: { statement: string; at: BinlogPosition } | null;
}

export interface ScanResult {
  tables: Map<string, TableScan>;
  /** The position after the last whole transaction read: the next scan starts here. */
  end: BinlogPosition;
  /** The scan stopped at the record limit with committed changes after `end`. */
  limited: boolean;
}

export interface ScanRequest {
  from: BinlogPosition;
  /** Stop at the first transaction boundary at or past it: the log's end when the scan began. */
  until: BinlogPosition;
  targets: readonly ScanTarget[];
  /** Stop after the transaction in which any target's records reach it. */
  recordLimit: number;
  serverId: number;
}

export const targetKey = (table: { schema: string; name: string }) => `${table.schema}\u0000${table.name}`;

/**
 * Reads the binary log from `from` up to `until` and collects, per target table, the keys its row events name (a
 * key update names the old key and the new), never stopping inside a transaction. Only keys: the caller reads
 * the current rows of those keys from the table itself, so a value never passes through this decoder.
 */
export async function scanChanges(options: ConnectionOptions, request: ScanRequest): Promise<ScanResult> {
  const targets = new Map(request.targets.map((target) => [targetKey(target), target]));
  const tables = new Map<string, TableScan>(request.targets.map((target) => [targetKey(target), { keys: new Map(), records: 0, lastChange: null, columnsAdded: false, rewritten: null }]));
  const tableIds = new Map<number, { target: ScanTarget; columns: MappedColumn[] }>();
  let file = request.from.file;
  let end: BinlogPosition = { ...request.from };
  let limited = false;
  let inTransaction = false;
  let pending: { scan: TableScan; key: ChangedKey; text: string }[] = [];
  let pendingRecords = new Map<TableScan, number>();

  const commit = (position: BinlogPosition): 'stop' | undefined => {
    for (const { scan, key, text } of pending) if (!scan.keys.has(text)) scan.keys.set(text, key);
    for (const [scan, records] of pendingRecords) {
      scan.records += records;
      scan.lastChange = position;
    }
    pending = [];
    pendingRecords = new Map();
    inTransaction = false;
    end = position;
    if (comparePositions(end, request.until) >= 0) return 'stop';
    if ([...tables.values()].some((scan) => scan.records >= request.recordLimit || scan.rewritten !== null)) {
      limited = comparePositions(end, request.until) < 0;
      return 'stop';
    }
    return undefined;
  };

  await dumpBinlog(options, { file: request.from.file, position: request.from.position, serverId: request.serverId }, (bytes) => {
    const header = eventHeader(bytes);
    const event = parseEvent(bytes, header);
    const here = (): BinlogPosition => ({ file, position: header.logPos });
    switch (event.type) {
      case 'rotate':
        file = event.nextFile;
        if (!inTransaction && comparePositions({ file, position: event.position }, end) > 0) end = { file, position: event.position };
        return undefined;
      case 'gtid':
        inTransaction = !event.standalone;
        return undefined;
      case 'xid':
        return commit(here());
      case 'query': {
        const statement = event.statement.trim().toUpperCase();
        if (statement === 'BEGIN' || statement.startsWith('XA START')) {
          inTransaction = true;
          return undefined;
        }
        if (statement === 'COMMIT' || statement === 'ROLLBACK' || statement.startsWith('XA COMMIT') || statement.startsWith('XA ROLLBACK')) return commit(here());
        if (statement.startsWith('XA END') || statement.startsWith('SAVEPOINT') || statement.startsWith('ROLLBACK TO')) return undefined;
        for (const target of targets.values()) {
          const effect = ddlEffect(event.statement, event.schema, target);
          const scan = tables.get(targetKey(target));
          if (scan === undefined || effect.effect === 'none') continue;
          if (effect.effect === 'columns-added') scan.columnsAdded = true;
          else scan.rewritten ??= { statement: effect.statement, at: here() };
        }
        return inTransaction ? undefined : commit(here());
      }
      case 'table-map': {
        const target = targets.get(targetKey({ schema: event.schema, name: event.table }));
        if (target === undefined) tableIds.delete(event.tableId);
        else tableIds.set(event.tableId, { target, columns: mappedColumns(event.columnTypes, event.metadata) });
        return undefined;
      }
      case 'rows': {
        const mapped = tableIds.get(event.tableId);
        if (mapped === undefined) return undefined;
        const scan = tables.get(targetKey(mapped.target));
        if (scan === undefined) return undefined;
        let count = 0;
        for (const key of rowKeys(event.body, event.kind, mapped.columns, mapped.target)) {
          pending.push({ scan, key: { key, first: event.kind }, text: JSON.stringify(key) });
          count += 1;
        }
        pendingRecords.set(scan, (pendingRecords.get(scan) ?? 0) + (event.kind === 'update' ? count / 2 : count));
        return undefined;
      }
      case 'other':
        if (header.typeCode === EVENT.FORMAT_DESCRIPTION || header.logPos === 0) return undefined;
        return undefined;
    }
  });
  return { tables, end, limited };
}

/** The keys of every row image of a rows event (an update's before and after images both). */
function* rowKeys(body: ByteReader, kind: RowsKind, columns: readonly MappedColumn[], target: ScanTarget): Generator<(string | null)[]> {
  const width = body.lengthEncoded();
  const bitmapBytes = Math.floor((width + 7) / 8);
  const present = [body.bytes(bitmapBytes)];
  if (kind === 'update') present.push(body.bytes(bitmapBytes));
  const byOrdinal = new Map(target.keyColumns.map((column, index) => [column.ordinal, index]));
  while (body.remaining > 0) {
    for (const image of present) {
      const isPresent = (column: number) => ((image[column >> 3] ?? 0) & (1 << (column & 7))) !== 0;
      const presentCount = Array.from({ length: width }, (_, column) => column).filter(isPresent).length;
      const nulls = body.bytes(Math.floor((presentCount + 7) / 8));
      const key: (string | null)[] = target.keyColumns.map(() => null);
      let index = 0;
      for (let column = 0; column < width; column += 1) {
        if (!isPresent(column)) continue;
        const isNull = ((nulls[index >> 3] ?? 0) & (1 << (index & 7))) !== 0;
        index += 1;
        if (isNull) continue;
        const mapped = columns[column];
        if (mapped === undefined) throw new RangeError(`a row image has column ${column} of a table mapped with ${columns.length}`);
        const keyIndex = byOrdinal.get(column);
        const keyColumn = keyIndex === undefined ? undefined : target.keyColumns[keyIndex];
        if (keyColumn === undefined) body.skip(valueLength(mapped, body));
        else key[keyIndex ?? 0] = keyColumn.text(decodeKeyValue(mapped, keyColumn.decoding, body));
      }
      yield key;
    }
  }
}
