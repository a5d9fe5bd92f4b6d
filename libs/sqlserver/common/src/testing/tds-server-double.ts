import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP server that speaks the first two exchanges of TDS as SQL Server does (MS-TDS,
 * https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-tds/): it answers PRELOGIN with its
 * encryption setting (2.2.6.5: ENCRYPT_REQ, 0x03, when Force Encryption is on or on Azure SQL; ENCRYPT_NOT_SUP,
 * 0x02, answering a client that offered none on a server that does not force it), then answers LOGIN7 with
 * the ERROR tokens (2.2.7.10) the server sends for a refused login, ended by DONE (2.2.7.6). No TLS: it serves
 * only the cases where none is negotiated.
 */
export interface TdsServerDouble {
  port: number;
  /** Packet types the client sent, in order (0x12 PRELOGIN, 0x10 LOGIN7). */
  receivedTypes: number[];
  close(): Promise<void>;
}

export interface LoginError {
  number: number;
  message: string;
}

export interface TdsServerBehaviour {
  encryption: 'required' | 'not-supported';
  /** ERROR tokens answering LOGIN7, in the order SQL Server sends them. */
  loginErrors: readonly LoginError[];
}

const PRELOGIN = 0x12;
const LOGIN7 = 0x10;
const TABULAR_RESULT = 0x04;
const ENCRYPTION = { required: 0x03, 'not-supported': 0x02 } as const;

export async function startTdsServerDouble(behaviour: TdsServerBehaviour): Promise<TdsServerDouble> {
  const receivedTypes: number[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 8 && pending.length >= pending.readUInt16BE(2)) {
        const type = pending.readUInt8(0);
        pending = pending.subarray(pending.readUInt16BE(2));
        receivedTypes.push(type);
        if (type === PRELOGIN) socket.write(packet(preloginResponse(ENCRYPTION[behaviour.encryption])));
        if (type === LOGIN7) socket.write(packet(Buffer.concat([...behaviour.loginErrors.map(errorToken), doneToken()])));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    receivedTypes,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One packet, status EOM (MS-TDS 2.2.3.1). */
function packet(payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt8(TABULAR_RESULT, 0);
  header.writeUInt8(0x01, 1);
  header.writeUInt16BE(payload.length + 8, 2);
  header.writeUInt8(1, 6);
  return Buffer.concat([header, payload]);
}

/** VERSION (SQL Server 16.0) and ENCRYPTION options, then the terminator and their data (MS-TDS 2.2.6.5). */
function preloginResponse(encryption: number): Buffer {
  const options = Buffer.from([0x00, 0, 11, 0, 6, 0x01, 0, 17, 0, 1, 0xff]);
  const version = Buffer.from([16, 0, 0x10, 0x00, 0, 0]);
  return Buffer.concat([options, version, Buffer.from([encryption])]);
}

const usVarChar = (text: string) => {
  const length = Buffer.alloc(2);
  length.writeUInt16LE(text.length);
  return Buffer.concat([length, Buffer.from(text, 'utf16le')]);
};
const bVarChar = (text: string) => Buffer.concat([Buffer.from([text.length]), Buffer.from(text, 'utf16le')]);

/** ERROR token (MS-TDS 2.2.7.10), class 14 as login failures have, TDS 7.2+ 4-byte line number. */
function errorToken(error: LoginError): Buffer {
  const number = Buffer.alloc(4);
  number.writeUInt32LE(error.number);
  const body = Buffer.concat([number, Buffer.from([1, 14]), usVarChar(error.message), bVarChar('double'), bVarChar(''), Buffer.alloc(4)]);
  const head = Buffer.alloc(3);
  head.writeUInt8(0xaa, 0);
  head.writeUInt16LE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** DONE with DONE_ERROR (0x02), no rows (MS-TDS 2.2.7.6). */
function doneToken(): Buffer {
  const token = Buffer.alloc(13);
  token.writeUInt8(0xfd, 0);
  token.writeUInt16LE(0x02, 1);
  return token;
}
