/**
 * PostgreSQL's wire format for the protocol doubles of this library
 * (https://www.postgresql.org/docs/current/protocol-message-formats.html).
 */

export function int16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeInt16BE(value);
  return buffer;
}

export function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

/** A typed message: Byte1 type, Int32 length (itself included, not the type byte), then the body. */
export function message(type: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
}

/** The first typed message of `buffer` and what follows it; null while it has not all arrived. */
export function nextTypedMessage(buffer: Buffer): { type: string; body: Buffer; rest: Buffer } | null {
  if (buffer.length < 5) return null;
  const length = buffer.readInt32BE(1);
  if (buffer.length < 1 + length) return null;
  return { type: String.fromCharCode(buffer[0] ?? 0), body: buffer.subarray(5, 1 + length), rest: buffer.subarray(1 + length) };
}
