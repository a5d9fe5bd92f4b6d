import { createServer, type Socket } from 'node:net';
import { int32, message, nextTypedMessage } from './postgres-wire';

export interface MutePostgresServer {
  port: number;
  /** The simple-protocol query texts received (answered or not), in order. */
  readonly queries: string[];
  /** How many connections are open on the server's side now. */
  openConnections(): number;
  stop(): Promise<void>;
}

/**
 * A TCP server double of a PostgreSQL (or Redshift) server whose connection stops answering mid-session, as when a
 * network element drops it: it accepts the startup message (no TLS, no password: AuthenticationOk), says
 * ReadyForQuery, answers every simple query whose text matches `answered` (CommandComplete + ReadyForQuery), and
 * never answers any other. Messages per https://www.postgresql.org/docs/current/protocol-message-formats.html.
 */
export async function startMutePostgresServer(answered: RegExp = /^SET /i): Promise<MutePostgresServer> {
  const sockets = new Set<Socket>();
  const queries: string[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer: Buffer = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          // The startup message: Int32 length (itself included), then the protocol version and parameters.
          if (buffer.length < 4) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          buffer = buffer.subarray(length);
          started = true;
          socket.write(Buffer.concat([message('R', int32(0)), message('Z', Buffer.from('I'))]));
          continue;
        }
        const next = nextTypedMessage(buffer);
        if (next === null) return;
        const { type, body } = next;
        buffer = next.rest;
        if (type === 'X') {
          socket.end();
          return;
        }
        if (type !== 'Q') continue;
        const text = body.toString('utf8').replace(/\0$/, '');
        queries.push(text);
        if (answered.test(text)) socket.write(Buffer.concat([message('C', Buffer.from('SET\0')), message('Z', Buffer.from('I'))]));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('mute PostgreSQL server has no TCP address');
  return {
    port: address.port,
    queries,
    openConnections: () => sockets.size,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
