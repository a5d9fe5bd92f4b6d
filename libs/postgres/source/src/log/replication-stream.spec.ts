import { parseLsn } from './relay-leader';
import { parseFrame } from './replication-stream';

/*
 * The streaming replication protocol's CopyData payloads (PostgreSQL's "Streaming Replication Protocol"): XLogData is
 * 'w', the start and end of the WAL it carries and the server's clock (Int64 each), then the pgoutput message; a primary
 * keepalive is 'k', the end of WAL, the clock, and a byte asking for an immediate reply.
 */
const int64 = (value: bigint) => {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(value);
  return buffer;
};

describe('replication stream frames', () => {
  it('reads XLogData as its start position and its message', () => {
    const message = Buffer.from('B-message');
    const frame = Buffer.concat([Buffer.from('w'), int64(0x16b374d848n), int64(0x16b374d900n), int64(0n), message]);
    expect(parseFrame(frame)).toEqual({ kind: 'data', walStart: 0x16b374d848n, payload: message });
  });

  it('reads a keepalive as how far the server has decoded and whether it wants a reply now', () => {
    expect(parseFrame(Buffer.concat([Buffer.from('k'), int64(0x100n), int64(0n), Buffer.from([1])]))).toEqual({ kind: 'keepalive', walEnd: 0x100n, replyRequested: true });
    expect(parseFrame(Buffer.concat([Buffer.from('k'), int64(0x100n), int64(0n), Buffer.from([0])]))).toEqual({ kind: 'keepalive', walEnd: 0x100n, replyRequested: false });
  });

  it('refuses a frame it does not know or one cut short, naming it', () => {
    expect(() => parseFrame(Buffer.from('x1234'))).toThrow("unexpected replication message 'x' of 5 bytes");
    expect(() => parseFrame(Buffer.concat([Buffer.from('k'), int64(1n)]))).toThrow("unexpected replication message 'k' of 9 bytes");
  });
});

describe('WAL positions', () => {
  it("reads pg_lsn's text as a number, high word first", () => {
    expect(parseLsn('16/B374D848')).toBe(0x16b374d848n);
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe(0xffffffffffffffffn);
  });

  it('refuses what is not one', () => {
    expect(() => parseLsn('16B374D848')).toThrow('not a WAL position: 16B374D848');
  });
});
