import type { ConnectionOptions } from 'mysql2';
import { dumpBinlog } from './binlog-dump';
import { eventHeader, parseEvent, type RowsKind } from './binlog-events';
import { comparePositions, type BinlogPosition } from './binlog-position';
import type { ByteReader } from './byte-reader';
import { ddlEffect } from './ddl';
import { decodeKeyValue, mappedColumns, valueLength, type KeyDecoding, type MappedColumn } from './row-image';

/** A table whose changed keys a scan collects: where its key columns are in its rows, and how each is read. */
export interface ScanTarget {
  schema: string;
  name: string;
  keyColumns: readonly { ordinal: number; decoding: KeyDecoding }[];
}

/** A key seen changed, as the server's texts of its columns (what the source's select renders), and the first kind of change seen for it. */
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

/** One table's read of a scan: from its own position, bounded by its own record limit. */
export interface TableRead {
  target: ScanTarget;
  /** The table's watermark: a transaction boundary; only transactions that begin at or after it count. */
  from: BinlogPosition;
  /** Stop this table's read after the transaction in which its records reach it. */
  limit: number;
}

export interface TableReadResult extends TableScan {
  /** The position after the last whole transaction this read covered: its next read starts here. */
  end: BinlogPosition;
  /** The read stopped at its record limit with committed changes after `end`. */
  limited: boolean;
}

export interface ScanRequest {
  /** Stop at the first transaction boundary at or past it: the log's end when the scan began. */
  until: BinlogPosition;
  reads: readonly TableRead[];
  serverId: number;
}

export const targetKey = (table: { schema: string; name: string }) => `${table.schema}\u0000${table.name}`;

interface ReadState extends TableReadResult {
  read: TableRead;
  done: boolean;
}

const emptyScan = (): TableScan => ({ keys: new Map(), records: 0, lastChange: null, columnsAdded: false, rewritten: null });

/**
 * Reads the binary log once, from the oldest of the reads' positions up to `until`, and collects for each read the keys
 * its table's row events name (a key update names the old key and the new) in the transactions that begin at or after
 * its own position, never stopping inside a transaction: one reader serves every table of the source. Only keys: the
 * caller reads the current rows of those keys from the table itself, so a value never passes through this decoder.
 */
export async function scanChanges(options: ConnectionOptions, request: ScanRequest): Promise<TableReadResult[]> {
  const states: ReadState[] = request.reads.map((read) => ({ ...emptyScan(), read, end: { ...read.from }, limited: false, done: comparePositions(read.from, request.until) >= 0 }));
  const active = states.filter((state) => !state.done);
  if (active.length === 0) return states.map(resultOf);
  const from = active.map((state) => state.read.from).reduce((left, right) => (comparePositions(left, right) <= 0 ? left : right));
  const targets = new Map(active.map((state) => [targetKey(state.read.target), state.read.target]));
  const tableIds = new Map<number, { target: ScanTarget; columns: MappedColumn[] }>();
  let file = from.file;
  /** Where the transaction being read began: the end of the one before. */
  let boundary: BinlogPosition = { ...from };
  let inTransaction = false;
  let pendingKeys = new Map<string, ChangedKey[]>();
  let pendingRecords = new Map<string, number>();
  let pendingDdl: { key: string; effect: 'columns-added' | 'rewritten'; statement: string; at: BinlogPosition }[] = [];

  const commit = (position: BinlogPosition): 'stop' | undefined => {
    for (const state of states) {
      if (state.done || comparePositions(boundary, state.read.from) < 0) continue;
      const key = targetKey(state.read.target);
      for (const changed of pendingKeys.get(key) ?? []) {
        const text = JSON.stringify(changed.key);
        if (!state.keys.has(text)) state.keys.set(text, changed);
      }
      const records = pendingRecords.get(key) ?? 0;
      if (records > 0) {
        state.records += records;
        state.lastChange = position;
      }
      for (const ddl of pendingDdl.filter((entry) => entry.key === key)) {
        if (ddl.effect === 'columns-added') state.columnsAdded = true;
        else state.rewritten ??= { statement: ddl.statement, at: ddl.at };
      }
      state.end = position;
      const reachedEnd = comparePositions(position, request.until) >= 0;
      if (reachedEnd || state.records >= state.read.limit || state.rewritten !== null) {
        state.done = true;
        state.limited = !reachedEnd && state.rewritten === null;
      }
    }
    pendingKeys = new Map();
    pendingRecords = new Map();
    pendingDdl = [];
    inTransaction = false;
    boundary = position;
    return states.every((state) => state.done) ? 'stop' : undefined;
  };

  await dumpBinlog(options, { file: from.file, position: from.position, serverId: request.serverId }, (bytes) => {
    const header = eventHeader(bytes);
    const event = parseEvent(bytes, header);
    const here = (): BinlogPosition => ({ file, position: header.logPos });
    switch (event.type) {
      case 'rotate': {
        file = event.nextFile;
        const next = { file, position: event.position };
        if (inTransaction || comparePositions(next, boundary) <= 0) return undefined;
        boundary = next;
        for (const state of states) if (!state.done && comparePositions(next, state.read.from) >= 0) state.end = next;
        return undefined;
      }
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
        for (const [key, target] of targets) {
          const effect = ddlEffect(event.statement, event.schema, target);
          if (effect.effect === 'columns-added') pendingDdl.push({ key, effect: 'columns-added', statement: '', at: here() });
          else if (effect.effect === 'rewritten') pendingDdl.push({ key, effect: 'rewritten', statement: effect.statement, at: here() });
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
        const key = targetKey(mapped.target);
        const keys = pendingKeys.get(key) ?? [];
        pendingKeys.set(key, keys);
        let count = 0;
        for (const changed of rowKeys(event.body, event.kind, mapped.columns, mapped.target)) {
          keys.push({ key: changed, first: event.kind });
          count += 1;
        }
        pendingRecords.set(key, (pendingRecords.get(key) ?? 0) + (event.kind === 'update' ? count / 2 : count));
        return undefined;
      }
      case 'other':
        return undefined;
    }
  });
  return states.map(resultOf);
}

function resultOf(state: ReadState): TableReadResult {
  const { keys, records, lastChange, columnsAdded, rewritten, end, limited } = state;
  return { keys, records, lastChange, columnsAdded, rewritten, end, limited };
}

/** The keys of every row image of a rows event (an update's before and after images both). */
function* rowKeys(body: ByteReader, kind: RowsKind, columns: readonly MappedColumn[], target: ScanTarget): Generator<(string | null)[]> {
  const width = body.lengthEncoded();
  const bitmapBytes = Math.floor((width + 7) / 8);
  const present = [body.bytes(bitmapBytes)];
  if (kind === 'update') present.push(body.bytes(bitmapBytes));
  const byOrdinal = new Map(target.keyColumns.map((column, index) => [column.ordinal, index]));
  const images = present.map((bitmap) => {
    const isPresent = (column: number) => ((bitmap[column >> 3] ?? 0) & (1 << (column & 7))) !== 0;
    let presentCount = 0;
    for (let column = 0; column < width; column += 1) if (isPresent(column)) presentCount += 1;
    return { isPresent, presentCount };
  });
  while (body.remaining > 0) {
    for (const { isPresent, presentCount } of images) {
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
        else key[keyIndex ?? 0] = decodeKeyValue(mapped, keyColumn.decoding, body);
      }
      yield key;
    }
  }
}
