/**
 * Decoding of pgoutput's logical replication messages, protocol version 1, one per XLogData message of the replication
 * stream (replication-stream.ts). Only what change capture needs is kept: a relation's
 * columns and which of them are its replica identity, the values of a changed row's columns as text, and the end of
 * each transaction. PostgreSQL's documentation, "Logical Replication Message Formats", gives every layout read here.
 */

/** A column of a Relation message, in the order tuples carry their values (generated columns are left out). */
export interface RelationColumn {
  name: string;
  /** Flag 1: part of the replica identity (the primary key under REPLICA IDENTITY DEFAULT). */
  inIdentity: boolean;
}

/**
 * A column value of a tuple: text, SQL NULL, a TOASTed value the change left unchanged (not sent), or a value sent but
 * not decoded because the caller did not ask for its column (ColumnsWanted).
 */
export type TupleValue = { kind: 'text'; text: string } | { kind: 'null' } | { kind: 'unchanged' } | { kind: 'skipped' };

/**
 * The columns (positions in the relation's tuples) whose text a decode builds, by relation; null for every column. Change
 * capture needs only a row's key: building the text of every other column of millions of rows was most of the relay's
 * allocations.
 */
export type ColumnsWanted = (relid: number) => ReadonlySet<number> | null;

const NULL_VALUE: TupleValue = Object.freeze({ kind: 'null' });
const UNCHANGED_VALUE: TupleValue = Object.freeze({ kind: 'unchanged' });
const SKIPPED_VALUE: TupleValue = Object.freeze({ kind: 'skipped' });
const EVERY_COLUMN: ColumnsWanted = () => null;

export type PgOutputMessage =
  | { type: 'begin'; finalLsn: bigint; xid: number }
  | { type: 'commit'; commitLsn: bigint; endLsn: bigint }
  | { type: 'relation'; relid: number; schema: string; name: string; replicaIdentity: string; columns: RelationColumn[] }
  | { type: 'insert'; relid: number; newTuple: TupleValue[] }
  /** `oldTuple` is the old key ('K') or whole old row ('O', REPLICA IDENTITY FULL), sent when the key changed or the identity is FULL. */
  | { type: 'update'; relid: number; oldTuple: TupleValue[] | null; oldIsKey: boolean; newTuple: TupleValue[] }
  | { type: 'delete'; relid: number; oldTuple: TupleValue[]; oldIsKey: boolean }
  | { type: 'truncate'; relids: number[] }
  /** Origin, Type and logical decoding messages: nothing capture needs. */
  | { type: 'other'; tag: string };

export class PgOutputDecodeError extends Error {
  constructor(message: string) {
    super(`pgoutput message: ${message}`);
    this.name = 'PgOutputDecodeError';
  }
}

export function decodePgOutput(message: Buffer, wanted: ColumnsWanted = EVERY_COLUMN): PgOutputMessage {
  const reader = new MessageReader(message);
  const tag = String.fromCharCode(reader.byte());
  switch (tag) {
    case 'B': {
      const finalLsn = reader.int64();
      reader.int64(); // commit timestamp
      return { type: 'begin', finalLsn, xid: reader.uint32() };
    }
    case 'C': {
      reader.byte(); // flags
      const commitLsn = reader.int64();
      return { type: 'commit', commitLsn, endLsn: reader.int64() };
    }
    case 'R':
      return decodeRelation(reader);
    case 'I': {
      const relid = reader.uint32();
      reader.expectTag('N');
      return { type: 'insert', relid, newTuple: reader.tuple(wanted(relid)) };
    }
    case 'U': {
      const relid = reader.uint32();
      const columns = wanted(relid);
      let tupleTag = String.fromCharCode(reader.byte());
      let oldTuple: TupleValue[] | null = null;
      const oldIsKey = tupleTag === 'K';
      if (tupleTag === 'K' || tupleTag === 'O') {
        oldTuple = reader.tuple(columns);
        tupleTag = String.fromCharCode(reader.byte());
      }
      if (tupleTag !== 'N') throw new PgOutputDecodeError(`update of relation ${relid}: expected 'N', found '${tupleTag}'`);
      return { type: 'update', relid, oldTuple, oldIsKey, newTuple: reader.tuple(columns) };
    }
    case 'D': {
      const relid = reader.uint32();
      const tupleTag = String.fromCharCode(reader.byte());
      if (tupleTag !== 'K' && tupleTag !== 'O') throw new PgOutputDecodeError(`delete of relation ${relid}: expected 'K' or 'O', found '${tupleTag}'`);
      return { type: 'delete', relid, oldTuple: reader.tuple(wanted(relid)), oldIsKey: tupleTag === 'K' };
    }
    case 'T': {
      const count = reader.uint32();
      reader.byte(); // options: CASCADE, RESTART IDENTITY
      const relids: number[] = [];
      for (let index = 0; index < count; index += 1) relids.push(reader.uint32());
      return { type: 'truncate', relids };
    }
    default:
      return { type: 'other', tag };
  }
}

function decodeRelation(reader: MessageReader): PgOutputMessage {
  const relid = reader.uint32();
  const schema = reader.cString();
  const name = reader.cString();
  const replicaIdentity = String.fromCharCode(reader.byte());
  const count = reader.int16();
  const columns: RelationColumn[] = [];
  for (let index = 0; index < count; index += 1) {
    const flags = reader.byte();
    const columnName = reader.cString();
    reader.uint32(); // type oid
    reader.uint32(); // type modifier
    columns.push({ name: columnName, inIdentity: (flags & 1) === 1 });
  }
  return { type: 'relation', relid, schema, name, replicaIdentity, columns };
}

class MessageReader {
  private offset = 0;

  constructor(private readonly buffer: Buffer) {}

  byte(): number {
    this.need(1);
    const value = this.buffer.readUInt8(this.offset);
    this.offset += 1;
    return value;
  }

  int16(): number {
    this.need(2);
    const value = this.buffer.readInt16BE(this.offset);
    this.offset += 2;
    return value;
  }

  uint32(): number {
    this.need(4);
    const value = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  int64(): bigint {
    this.need(8);
    const value = this.buffer.readBigUInt64BE(this.offset);
    this.offset += 8;
    return value;
  }

  cString(): string {
    const end = this.buffer.indexOf(0, this.offset);
    if (end < 0) throw new PgOutputDecodeError('unterminated string');
    const text = this.buffer.toString('utf8', this.offset, end);
    this.offset = end + 1;
    return text;
  }

  expectTag(tag: string): void {
    const found = String.fromCharCode(this.byte());
    if (found !== tag) throw new PgOutputDecodeError(`expected '${tag}', found '${found}'`);
  }

  /** A TupleData: the text of the columns in `wanted` (every column when null), the others SKIPPED_VALUE. */
  tuple(wanted: ReadonlySet<number> | null): TupleValue[] {
    const count = this.int16();
    const values: TupleValue[] = [];
    for (let index = 0; index < count; index += 1) {
      const kind = String.fromCharCode(this.byte());
      if (kind === 'n') values.push(NULL_VALUE);
      else if (kind === 'u') values.push(UNCHANGED_VALUE);
      else if (kind === 't') {
        const length = this.uint32();
        this.need(length);
        values.push(wanted === null || wanted.has(index) ? { kind: 'text', text: this.buffer.toString('utf8', this.offset, this.offset + length) } : SKIPPED_VALUE);
        this.offset += length;
      } else throw new PgOutputDecodeError(`unknown column value kind '${kind}'`);
    }
    return values;
  }

  private need(bytes: number): void {
    if (this.offset + bytes > this.buffer.length) throw new PgOutputDecodeError(`truncated at byte ${this.offset} of ${this.buffer.length}`);
  }
}
