import type { PgOutputMessage, RelationColumn, TupleValue } from './pgoutput';

/** A log-captured table as the registry has it, with its change table's key columns (name and type). */
export interface LogTable {
  schema: string;
  name: string;
  changeTable: string;
  keys: readonly { name: string; type: string }[];
}

/** The records for one change table, column-wise: one array per key column, then the ops and the xids. */
export interface TableRecords {
  table: LogTable;
  keyValues: string[][];
  ops: string[];
  xids: string[];
}

/** A table whose changes the log could not give as key records: it is reseeded (CaptureFailedError). */
export interface LogFailure {
  table: LogTable;
  xid: string;
  reason: string;
}

/**
 * Turns decoded pgoutput messages into change records (key, op, xid8) for the log-captured tables, as the triggers
 * wrote them: an insert is 'I'; an update is 'U', or 'D' for the old key and 'I' for the new one when the key
 * changed; a delete is 'D'. Only keys are kept: a change read takes every value from the current row, so a TOASTed
 * value the log leaves out ("unchanged") is never needed. A TRUNCATE, or a key the log no longer carries (its
 * column renamed or dropped), is a failure: a read from at or below it reseeds the table.
 */
export class ChangeRecordBuilder {
  private readonly relations = new Map<number, RelationColumn[]>();
  private readonly records = new Map<number, TableRecords>();
  private readonly failures = new Map<number, LogFailure>();
  /** Where each relation's tuples carry the table's key columns (KeyPositions), until its relation or the tables change. */
  private readonly keyPositions = new Map<number, KeyPositions>();
  private xid = '';
  private inTransaction = false;

  constructor(
    private tables: ReadonlyMap<number, LogTable>,
    private toXid8: (xid: number) => bigint,
  ) {}

  /**
   * The tables and transaction ids of the next round of one stream: relation messages stay known (a walsender sends a
   * relation once per session), the tables captured and the horizon near which xids are widened may have moved.
   */
  nextRound(tables: ReadonlyMap<number, LogTable>, toXid8: (xid: number) => bigint): void {
    this.tables = tables;
    this.toXid8 = toXid8;
    this.keyPositions.clear();
  }

  /**
   * The columns of a relation's tuples whose values the builder reads (ColumnsWanted): its key columns; none for a
   * relation not captured here; every column while the relation or a key column is unknown (the change then fails).
   */
  wantedColumns(relid: number): ReadonlySet<number> | null {
    const positions = this.positionsOf(relid);
    return positions.kind === 'found' ? positions.wanted : positions.kind === 'not captured' ? NO_COLUMNS : null;
  }

  /** Between a Begin and its Commit: a round never ends there. */
  insideTransaction(): boolean {
    return this.inTransaction;
  }

  add(message: PgOutputMessage): void {
    switch (message.type) {
      case 'begin':
        this.xid = this.toXid8(message.xid).toString();
        this.inTransaction = true;
        return;
      case 'relation':
        this.relations.set(message.relid, message.columns);
        this.keyPositions.delete(message.relid);
        return;
      case 'insert':
        this.record(message.relid, message.newTuple, 'I');
        return;
      case 'update':
        this.update(message.relid, message.oldTuple, message.newTuple);
        return;
      case 'delete':
        this.record(message.relid, message.oldTuple, 'D');
        return;
      case 'truncate':
        for (const relid of message.relids) this.fail(relid, 'the table was truncated (read from the log)');
        return;
      case 'commit':
        this.inTransaction = false;
        return;
      case 'other':
        return;
    }
  }

  /** Records built and not yet taken. */
  pendingRecords(): number {
    let count = 0;
    for (const records of this.records.values()) count += records.ops.length;
    return count;
  }

  /** What was built, by change table; the builder starts empty again. */
  take(): { records: TableRecords[]; failures: LogFailure[] } {
    const taken = { records: [...this.records.values()], failures: [...this.failures.values()] };
    this.records.clear();
    this.failures.clear();
    return taken;
  }

  private update(relid: number, oldTuple: TupleValue[] | null, newTuple: TupleValue[]): void {
    const oldKey = oldTuple === null ? null : this.keyOf(relid, oldTuple);
    const newKey = this.keyOf(relid, newTuple, oldKey);
    if (newKey === undefined || oldKey === undefined) return;
    if (newKey === null) return this.fail(relid, 'an updated row came without its key');
    if (oldKey !== null && !sameKey(oldKey, newKey)) {
      this.push(relid, oldKey, 'D');
      this.push(relid, newKey, 'I');
    } else this.push(relid, newKey, 'U');
  }

  private record(relid: number, tuple: TupleValue[], op: 'I' | 'D'): void {
    const key = this.keyOf(relid, tuple);
    if (key === undefined) return;
    if (key === null) return this.fail(relid, `a ${op === 'I' ? 'new' : 'deleted'} row came without its key`);
    this.push(relid, key, op);
  }

  /**
   * The key's values in the change table's key order; undefined when the table is not log-captured here (or has
   * failed already), null when a key value is missing from the tuple.
   */
  private keyOf(relid: number, tuple: TupleValue[], fallback: string[] | null = null): string[] | null | undefined {
    const positions = this.positionsOf(relid);
    if (positions.kind === 'not captured') return undefined;
    if (positions.kind === 'failed') {
      this.fail(relid, positions.reason);
      return undefined;
    }
    const values: string[] = [];
    for (const [index, position] of positions.keys.entries()) {
      const value = tuple[position];
      if (value?.kind === 'text') values.push(value.text);
      else if (value?.kind === 'unchanged' && fallback?.[index] !== undefined) values.push(fallback[index]);
      else return null;
    }
    return values;
  }

  private positionsOf(relid: number): KeyPositions {
    const known = this.keyPositions.get(relid);
    if (known !== undefined) return known;
    const positions = keyPositionsOf(this.tables.get(relid), this.relations.get(relid));
    this.keyPositions.set(relid, positions);
    return positions;
  }

  private push(relid: number, key: string[], op: 'I' | 'U' | 'D'): void {
    const table = this.tables.get(relid);
    if (table === undefined) return;
    let records = this.records.get(relid);
    if (records === undefined) {
      records = { table, keyValues: table.keys.map(() => []), ops: [], xids: [] };
      this.records.set(relid, records);
    }
    key.forEach((value, index) => records.keyValues[index]?.push(value));
    records.ops.push(op);
    records.xids.push(this.xid);
  }

  /**
   * Records that the table's changes at the current transaction are not all known. The failure keeps the latest such
   * transaction (a read from at or below it reseeds); the records built around it stay, for reads that start above it.
   */
  private fail(relid: number, reason: string): void {
    const table = this.tables.get(relid);
    if (table === undefined) return;
    this.failures.set(relid, { table, xid: this.xid, reason });
  }
}

/** Where a relation's tuples carry its table's key columns, in the change table's key order. */
type KeyPositions =
  | { kind: 'found'; keys: readonly number[]; wanted: ReadonlySet<number> }
  | { kind: 'not captured' }
  | { kind: 'failed'; reason: string };

const NO_COLUMNS: ReadonlySet<number> = new Set();

function keyPositionsOf(table: LogTable | undefined, columns: RelationColumn[] | undefined): KeyPositions {
  if (table === undefined) return { kind: 'not captured' };
  if (columns === undefined) return { kind: 'failed', reason: 'a change came before its relation message' };
  const keys: number[] = [];
  for (const key of table.keys) {
    const position = columns.findIndex((column) => column.name === key.name);
    if (position < 0) return { kind: 'failed', reason: `key column ${key.name} is no longer in the table as the log has it (renamed or dropped)` };
    keys.push(position);
  }
  return { kind: 'found', keys, wanted: new Set(keys) };
}

function sameKey(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((value, index) => value === right[index]);
}

/**
 * The full (epoch-qualified) transaction id of a 32-bit xid the log gives, from a full id near it: the relay's horizon,
 * which every transaction it decodes is within 2^31 of.
 */
export function fullTransactionId(xid: number, near: bigint): bigint {
  const low = near & 0xffffffffn;
  let difference = BigInt(xid) - low;
  if (difference > 0x7fffffffn) difference -= 0x100000000n;
  else if (difference < -0x80000000n) difference += 0x100000000n;
  return near + difference;
}
