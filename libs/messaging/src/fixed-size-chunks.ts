/**
 * Regroups a stream of buffers into chunks of exactly `chunkBytes` (the last one may be shorter), cutting
 * anywhere. Holds at most one chunk in memory; input pieces larger than a chunk are sliced without copying.
 */
export async function* fixedSizeChunks(pieces: AsyncIterable<Buffer | Uint8Array>, chunkBytes: number): AsyncGenerator<Buffer> {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) throw new Error(`chunk size must be an integer >= 1, got ${chunkBytes}`);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of pieces) {
    let rest = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    while (rest.length > 0) {
      const take = Math.min(chunkBytes - pendingBytes, rest.length);
      pending.push(rest.subarray(0, take));
      pendingBytes += take;
      rest = rest.subarray(take);
      if (pendingBytes === chunkBytes) {
        yield joined(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) yield joined(pending, pendingBytes);
}

function joined(parts: Buffer[], length: number): Buffer {
  return parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, length);
}
