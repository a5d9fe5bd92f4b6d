import { BinlogFormatError, ByteReader } from './byte-reader';

/**
 * The binary log's events this reader acts on, parsed from the bytes the server sends (MySQL's "Binary Log"
 * internals, libbinlogevents; MariaDB's "Replication Protocol" knowledge base pages). Every other event is passed
 * over by type; the ones no reader may pass over (compressed rows, a compressed transaction) are refused by name.
 */
export const EVENT = {
  QUERY: 2,
  ROTATE: 4,
  FORMAT_DESCRIPTION: 15,
  XID: 16,
  TABLE_MAP: 19,
  WRITE_ROWS_V1: 23,
  UPDATE_ROWS_V1: 24,
  DELETE_ROWS_V1: 25,
  WRITE_ROWS_V2: 30,
  UPDATE_ROWS_V2: 31,
  DELETE_ROWS_V2: 32,
  XA_PREPARE: 38,
  PARTIAL_UPDATE_ROWS: 39,
  TRANSACTION_PAYLOAD: 40,
  MARIADB_GTID: 162,
  MARIADB_QUERY_COMPRESSED: 165,
  MARIADB_WRITE_ROWS_COMPRESSED_V1: 166,
  MARIADB_DELETE_ROWS_COMPRESSED: 171,
} as const;

/** Where every event starts: its type, and log_pos, the position of the event that follows it in its file. */
export const EVENT_HEADER_BYTES = 19;
/** MariaDB's GTID flag FL_STANDALONE: the event group is one statement without BEGIN (a DDL). */
const MARIADB_GTID_STANDALONE = 0x01;

export type RowsKind = 'insert' | 'update' | 'delete';

export type BinlogEvent =
  | { type: 'rotate'; nextFile: string; position: number }
  | { type: 'query'; schema: string; statement: string }
  | { type: 'xid' }
  | { type: 'gtid'; standalone: boolean }
  | { type: 'table-map'; tableId: number; schema: string; table: string; columnTypes: Buffer; metadata: Buffer }
  | { type: 'rows'; kind: RowsKind; tableId: number; body: ByteReader }
  | { type: 'other' };

export interface EventHeader {
  timestamp: number;
  typeCode: number;
  /** Position right after this event in its file (0 for an artificial event the server makes up, such as the first rotate). */
  logPos: number;
  flags: number;
}

export function eventHeader(event: Buffer): EventHeader {
  if (event.length < EVENT_HEADER_BYTES) throw new BinlogFormatError(`an event of ${event.length} bytes is shorter than its header`);
  return { timestamp: event.readUInt32LE(0), typeCode: event.readUInt8(4), logPos: event.readUInt32LE(13), flags: event.readUInt16LE(17) };
}

const ROWS_KINDS: Readonly<Record<number, { kind: RowsKind; v2: boolean }>> = {
  [EVENT.WRITE_ROWS_V1]: { kind: 'insert', v2: false },
  [EVENT.UPDATE_ROWS_V1]: { kind: 'update', v2: false },
  [EVENT.DELETE_ROWS_V1]: { kind: 'delete', v2: false },
  [EVENT.WRITE_ROWS_V2]: { kind: 'insert', v2: true },
  [EVENT.UPDATE_ROWS_V2]: { kind: 'update', v2: true },
  [EVENT.DELETE_ROWS_V2]: { kind: 'delete', v2: true },
};

/** An event this reader must not pass over: the rows it holds are out of its reach. */
export class UnreadableEventError extends Error {
  override readonly name = 'UnreadableEventError';
}

/**
 * Parses one event (its bytes without the trailing checksum). Table ids are 6 bytes, as every server since MySQL
 * 5.1.4 and every MariaDB writes them.
 */
export function parseEvent(event: Buffer, header: EventHeader): BinlogEvent {
  const body = new ByteReader(event, EVENT_HEADER_BYTES);
  const rows = ROWS_KINDS[header.typeCode];
  if (rows !== undefined) {
    const tableId = body.uintLE(6);
    body.skip(2);
    if (rows.v2) body.skip(body.uint16() - 2);
    return { type: 'rows', kind: rows.kind, tableId, body };
  }
  switch (header.typeCode) {
    case EVENT.ROTATE: {
      const position = Number(body.uintBig(8));
      return { type: 'rotate', position, nextFile: body.bytes(body.remaining).toString('latin1') };
    }
    case EVENT.QUERY: {
      body.skip(8);
      const schemaLength = body.uint8();
      body.skip(2);
      const statusLength = body.uint16();
      body.skip(statusLength);
      const schema = body.bytes(schemaLength).toString('utf8');
      body.skip(1);
      return { type: 'query', schema, statement: body.bytes(body.remaining).toString('utf8') };
    }
    case EVENT.XID:
    case EVENT.XA_PREPARE:
      return { type: 'xid' };
    case EVENT.MARIADB_GTID: {
      body.skip(12);
      return { type: 'gtid', standalone: (body.uint8() & MARIADB_GTID_STANDALONE) !== 0 };
    }
    case EVENT.TABLE_MAP: {
      const tableId = body.uintLE(6);
      body.skip(2);
      const schema = body.bytes(body.uint8()).toString('utf8');
      body.skip(1);
      const table = body.bytes(body.uint8()).toString('utf8');
      body.skip(1);
      const count = body.lengthEncoded();
      const columnTypes = body.bytes(count);
      const metadata = body.bytes(body.lengthEncoded());
      return { type: 'table-map', tableId, schema, table, columnTypes, metadata };
    }
    case EVENT.PARTIAL_UPDATE_ROWS:
      throw new UnreadableEventError('the binary log holds partial JSON updates: set binlog_row_value_options to \'\' on the source server');
    case EVENT.TRANSACTION_PAYLOAD:
      throw new UnreadableEventError('the binary log holds compressed transactions: set binlog_transaction_compression to OFF on the source server');
    case EVENT.MARIADB_QUERY_COMPRESSED:
      throw new UnreadableEventError('the binary log holds compressed events: set log_bin_compress to OFF on the source server');
    default:
      if (header.typeCode >= EVENT.MARIADB_WRITE_ROWS_COMPRESSED_V1 && header.typeCode <= EVENT.MARIADB_DELETE_ROWS_COMPRESSED) {
        throw new UnreadableEventError('the binary log holds compressed row events: set log_bin_compress to OFF on the source server');
      }
      return { type: 'other' };
  }
}
