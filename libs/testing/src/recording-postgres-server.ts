import { createServer, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { int16, int32, message, nextTypedMessage } from './postgres-wire';

export interface RecordingPostgresServer {
  port: number;
  /** The passwords clients sent (PasswordMessage), in order. */
  readonly passwords: string[];
  /** The statement texts received, simple (Query) and extended (Parse), in order. */
  readonly statements: string[];
  /** Every byte clients sent, after TLS, as latin1 text: what a server of the caller's would see. */
  received(): string;
  stop(): Promise<void>;
}

export interface RecordingPostgresOptions {
  /** PEM key and certificate: the server accepts an SSLRequest and speaks TLS (Redshift's clients insist on it). */
  tls?: { key: string; cert: string };
  /** The rows (text values) a statement answers with; none when absent or empty. */
  rowsFor?: (statement: string) => readonly Record<string, string>[];
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * A PostgreSQL-protocol server (also what Redshift speaks) that stands for a server of an attacker's: it asks every
 * client for its password in clear text (AuthenticationCleartextPassword), then answers every statement as done with
 * no rows unless `rowsFor` gives some (simple and extended protocol; COPY … FROM STDIN takes the data and reports
 * COPY 0), and records all it receives. For tests of what a client sends where, not of PostgreSQL's behaviour.
 * Messages per https://www.postgresql.org/docs/current/protocol-message-formats.html.
 */
export async function startRecordingPostgresServer(options: RecordingPostgresOptions = {}): Promise<RecordingPostgresServer> {
  const sockets = new Set<Socket>();
  const chunks: Buffer[] = [];
  const passwords: string[] = [];
  const statements: string[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    serve(socket, { options, chunks, passwords, statements });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('recording PostgreSQL server has no TCP address');
  return {
    port: address.port,
    passwords,
    statements,
    received: () => Buffer.concat(chunks).toString('latin1'),
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Recorder {
  options: RecordingPostgresOptions;
  chunks: Buffer[];
  passwords: string[];
  statements: string[];
}

function serve(raw: Socket, recorder: Recorder): void {
  let stream: Socket | TLSSocket = raw;
  let buffer: Buffer = Buffer.alloc(0);
  let started = false;
  let copying = false;
  const send = (...messages: Buffer[]) => stream.write(Buffer.concat(messages));

  const onData = (chunk: Buffer): void => {
    recorder.chunks.push(chunk);
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!started) {
        // Untyped: Int32 length (itself included), Int32 code, then the parameters.
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const code = buffer.readInt32BE(4);
        buffer = buffer.subarray(length);
        if (code === SSL_REQUEST && recorder.options.tls) {
          raw.write('S');
          raw.off('data', onData);
          const secure = new TLSSocket(raw, { isServer: true, key: recorder.options.tls.key, cert: recorder.options.tls.cert });
          secure.on('error', () => undefined);
          secure.on('data', onData);
          stream = secure;
          return;
        }
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          raw.write('N');
          continue;
        }
        started = true;
        send(message('R', int32(3)));
        continue;
      }
      const next = nextTypedMessage(buffer);
      if (next === null) return;
      const { type, body } = next;
      buffer = next.rest;
      if (type === 'X') {
        stream.end();
        return;
      }
      if (copying) {
        if (type === 'c' || type === 'f') {
          copying = false;
          send(type === 'c' ? commandComplete('COPY 0') : error('57014', 'COPY from stdin failed'), ready());
        }
        continue;
      }
      answer(type, body);
    }
  };

  const answer = (type: string, body: Buffer): void => {
    switch (type) {
      case 'p':
        recorder.passwords.push(cString(body, 0));
        send(message('R', int32(0)), message('K', Buffer.concat([int32(4242), int32(0)])), ready());
        return;
      case 'Q': {
        const text = cString(body, 0);
        recorder.statements.push(text);
        if (/^\s*COPY\b[\s\S]*\bFROM\s+STDIN\b/i.test(text)) {
          copying = true;
          send(message('G', Buffer.from([0, 0, 0])));
          return;
        }
        if (text.trim() === '') send(message('I', Buffer.alloc(0)), ready());
        else send(...resultOf(text, true), ready());
        return;
      }
      case 'P': {
        const name = cString(body, 0);
        recorder.statements.push(cString(body, Buffer.byteLength(name) + 1));
        send(message('1', Buffer.alloc(0)));
        return;
      }
      case 'B':
        send(message('2', Buffer.alloc(0)));
        return;
      case 'D': {
        // A statement's description is its parameters, then its columns; a portal's only its columns.
        const columns = columnsOf(rowsOf(recorder.statements.at(-1) ?? ''));
        send(...(body[0] === 0x53 ? [message('t', Buffer.from([0, 0]))] : []), columns.length ? rowDescription(columns) : message('n', Buffer.alloc(0)));
        return;
      }
      case 'E':
        send(...resultOf(recorder.statements.at(-1) ?? '', false));
        return;
      case 'C':
        send(message('3', Buffer.alloc(0)));
        return;
      case 'S':
        send(ready());
        return;
      default:
        // Flush and anything else: nothing to say.
        return;
    }
  };

  const rowsOf = (statement: string) => recorder.options.rowsFor?.(statement) ?? [];

  /** The rows of a statement and its CommandComplete; the simple protocol describes them first. */
  const resultOf = (statement: string, describe: boolean): Buffer[] => {
    const rows = rowsOf(statement);
    const columns = columnsOf(rows);
    return [
      ...(describe && columns.length ? [rowDescription(columns)] : []),
      ...rows.map((row) => dataRow(columns.map((column) => row[column] ?? ''))),
      commandComplete(tagOf(statement, rows.length)),
    ];
  };

  raw.on('data', onData);
}

function columnsOf(rows: readonly Record<string, string>[]): string[] {
  return Object.keys(rows[0] ?? {});
}

/** Every column as text (type oid 25), in text format. */
function rowDescription(columns: readonly string[]): Buffer {
  const fields = columns.map((column) => {
    const shape = Buffer.alloc(18);
    shape.writeInt32BE(25, 6);
    shape.writeInt16BE(-1, 10);
    shape.writeInt32BE(-1, 12);
    return Buffer.concat([Buffer.from(`${column}\0`), shape]);
  });
  return message('T', Buffer.concat([int16(columns.length), ...fields]));
}

function dataRow(values: readonly string[]): Buffer {
  return message('D', Buffer.concat([int16(values.length), ...values.map((value) => Buffer.concat([int32(Buffer.byteLength(value)), Buffer.from(value)]))]));
}

/** The CommandComplete tag of a statement that returned or touched `count` rows. */
function tagOf(text: string, count: number): string {
  const command = (/^\s*(\w+)/.exec(text)?.[1] ?? '').toUpperCase();
  if (command === 'INSERT') return `INSERT 0 ${count}`;
  if (['SELECT', 'UPDATE', 'DELETE', 'MERGE', 'COPY', 'FETCH', 'MOVE'].includes(command)) return `${command} ${count}`;
  return command;
}

function cString(body: Buffer, offset: number): string {
  const end = body.indexOf(0, offset);
  return body.subarray(offset, end === -1 ? body.length : end).toString('utf8');
}

function commandComplete(tag: string): Buffer {
  return message('C', Buffer.from(`${tag}\0`));
}

function ready(): Buffer {
  return message('Z', Buffer.from('I'));
}

function error(code: string, text: string): Buffer {
  return message('E', Buffer.from(`SERROR\0C${code}\0M${text}\0\0`));
}
