/** A little-endian reader over one binary-log event's bytes (the replication protocol's integers). */
export class ByteReader {
  constructor(
    readonly buffer: Buffer,
    public offset = 0,
    readonly end = buffer.length,
  ) {}

  get remaining(): number {
    return this.end - this.offset;
  }

  uint8(): number {
    this.need(1);
    const value = this.buffer.readUInt8(this.offset);
    this.offset += 1;
    return value;
  }

  uint16(): number {
    this.need(2);
    const value = this.buffer.readUInt16LE(this.offset);
    this.offset += 2;
    return value;
  }

  uint24(): number {
    this.need(3);
    const value = this.buffer.readUIntLE(this.offset, 3);
    this.offset += 3;
    return value;
  }

  uint32(): number {
    this.need(4);
    const value = this.buffer.readUInt32LE(this.offset);
    this.offset += 4;
    return value;
  }

  /** An unsigned little-endian integer of 1 to 8 bytes, exactly. */
  uintBig(bytes: number): bigint {
    this.need(bytes);
    let value = 0n;
    for (let index = bytes - 1; index >= 0; index -= 1) value = (value << 8n) | BigInt(this.buffer[this.offset + index] ?? 0);
    this.offset += bytes;
    return value;
  }

  /** Up to 6 bytes as a number (table ids). */
  uintLE(bytes: number): number {
    this.need(bytes);
    const value = this.buffer.readUIntLE(this.offset, bytes);
    this.offset += bytes;
    return value;
  }

  /** The protocol's length-encoded integer. */
  lengthEncoded(): number {
    const first = this.uint8();
    if (first < 0xfb) return first;
    if (first === 0xfc) return this.uint16();
    if (first === 0xfd) return this.uint24();
    if (first === 0xfe) return Number(this.uintBig(8));
    throw new BinlogFormatError(`a length-encoded integer cannot start with 0x${first.toString(16)}`);
  }

  bytes(length: number): Buffer {
    this.need(length);
    const slice = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  skip(length: number): void {
    this.need(length);
    this.offset += length;
  }

  private need(length: number): void {
    if (length < 0 || this.offset + length > this.end) throw new BinlogFormatError(`an event ends ${this.offset + length - this.end} bytes before a value it holds`);
  }
}

/** Bytes of the binary log this reader cannot make sense of: a bug here or an event format it does not know. */
export class BinlogFormatError extends Error {
  override readonly name = 'BinlogFormatError';
}
