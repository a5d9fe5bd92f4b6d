import { EventEmitter } from 'node:events';
import { createConnection, type Connection, type ConnectionOptions } from 'mysql2';
import { BinlogFormatError } from './byte-reader';

/** COM_BINLOG_DUMP's flag BINLOG_DUMP_NON_BLOCK: at the end of the log the server answers EOF instead of waiting. */
const BINLOG_DUMP_NON_BLOCK = 0x01;
const COM_BINLOG_DUMP = 0x12;
const OK = 0x00;
const EOF = 0xfe;
const ERR = 0xff;
/** MariaDB's MARIA_SLAVE_CAPABILITY_GTID: GTID events as they are (not rewritten into BEGIN). */
const MARIADB_SLAVE_CAPABILITY_GTID = 4;

/** The piece of mysql2's connection a command talks to (lib/base/connection.js). */
interface CommandConnection {
  addCommand(command: unknown): unknown;
  writePacket(packet: { length(): number; writeHeader(sequenceId: number): void; buffer: Buffer }): void;
  _resetSequenceId(): void;
}

/** mysql2's incoming packet (lib/packets/packet.js): the payload is buffer[offset, end). */
interface IncomingPacket {
  buffer: Buffer;
  offset: number;
  end: number;
  asError(encoding: string): Error;
}

/** A packet mysql2 writes: the 4-byte header is filled in by writeHeader. */
class OutgoingPacket {
  constructor(readonly buffer: Buffer) {}

  length(): number {
    return this.buffer.length;
  }

  writeHeader(sequenceId: number): void {
    this.buffer.writeUIntLE(this.buffer.length - 4, 0, 3);
    this.buffer.writeUInt8(sequenceId, 3);
  }
}

export interface BinlogDumpRequest {
  file: string;
  position: number;
  /** Unique among the server's replicas: a second connection with the same id makes the server drop the first. */
  serverId: number;
}

/**
 * COM_BINLOG_DUMP as one mysql2 command: every packet the server sends is an event (after its OK byte) until EOF,
 * which the non-blocking flag makes it send at the end of the log. The command never ends on its own otherwise.
 */
class BinlogDumpCommand extends EventEmitter {
  private next: ((packet: IncomingPacket) => boolean) | null = null;

  constructor(
    private readonly request: BinlogDumpRequest,
    private readonly onEvent: (event: Buffer) => void,
  ) {
    super();
  }

  /** mysql2 calls this for the command's first step (with no packet) and for each packet the server sends. */
  execute(packet: IncomingPacket | null, connection: CommandConnection): boolean {
    if (this.next === null) {
      connection._resetSequenceId();
      this.next = (incoming) => this.onPacket(incoming);
      connection.writePacket(this.dumpPacket());
      return false;
    }
    if (packet === null) return false;
    return this.next(packet);
  }

  private onPacket(packet: IncomingPacket): boolean {
    const marker = packet.buffer[packet.offset];
    if (marker === ERR) {
      this.emit('failed', packet.asError('utf8'));
      this.emit('end');
      return true;
    }
    if (marker === EOF && packet.end - packet.offset < 9) {
      this.emit('finished');
      this.emit('end');
      return true;
    }
    if (marker !== OK) {
      this.emit('failed', new BinlogFormatError(`the server sent a binary-log packet starting with 0x${(marker ?? 0).toString(16)}`));
      this.emit('end');
      return true;
    }
    try {
      this.onEvent(packet.buffer.subarray(packet.offset + 1, packet.end));
    } catch (error) {
      this.emit('failed', error);
      this.emit('end');
      return true;
    }
    return false;
  }

  private dumpPacket(): OutgoingPacket {
    const file = Buffer.from(this.request.file, 'latin1');
    const buffer = Buffer.alloc(4 + 11 + file.length);
    let at = 4;
    at = buffer.writeUInt8(COM_BINLOG_DUMP, at);
    at = buffer.writeUInt32LE(this.request.position, at);
    at = buffer.writeUInt16LE(BINLOG_DUMP_NON_BLOCK, at);
    at = buffer.writeUInt32LE(this.request.serverId, at);
    file.copy(buffer, at);
    return new OutgoingPacket(buffer);
  }
}

/** What the session must say before a dump: that it reads checksums as the server writes them, and MariaDB's GTID events. */
const DUMP_SESSION_SQL = [
  'SET @master_binlog_checksum = @@global.binlog_checksum',
  'SET @source_binlog_checksum = @@global.binlog_checksum',
  `SET @mariadb_slave_capability = ${MARIADB_SLAVE_CAPABILITY_GTID}`,
];

function query(connection: Connection, sql: string): Promise<unknown> {
  return new Promise((resolve, reject) => connection.query(sql, (error, result) => (error ? reject(error) : resolve(result))));
}

/**
 * Reads the binary log from `request`'s position to its end on a connection of its own, handing each event's bytes
 * (checksum stripped) to `onEvent` in order. `onEvent` may return 'stop' to end the read early (the connection is then
 * destroyed: a dump cannot be cancelled otherwise). Resolves when the end was reached or the read was stopped.
 */
export async function dumpBinlog(options: ConnectionOptions, request: BinlogDumpRequest, onEvent: (event: Buffer) => 'stop' | void): Promise<void> {
  const connection = createConnection(options);
  connection.on('error', () => undefined);
  try {
    await new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve())));
    const checksum = ((await query(connection, 'SELECT @@global.binlog_checksum AS checksum')) as { checksum: string }[])[0]?.checksum ?? 'NONE';
    const trailer = checksum.toUpperCase() === 'NONE' ? 0 : 4;
    for (const sql of DUMP_SESSION_SQL) await query(connection, sql);
    await new Promise<void>((resolve, reject) => {
      let stopped = false;
      const command = new BinlogDumpCommand(request, (event) => {
        if (stopped) return;
        if (onEvent(event.subarray(0, event.length - trailer)) === 'stop') {
          stopped = true;
          resolve();
        }
      });
      command.once('finished', () => resolve());
      command.once('failed', (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
      connection.once('error', (error: Error) => reject(error));
      connection.once('end', () => (stopped ? resolve() : reject(new Error('the server closed the binary-log connection'))));
      (connection as unknown as CommandConnection).addCommand(command);
    });
  } finally {
    connection.destroy();
  }
}
