import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { ApiError } from './api-error';

/**
 * Reads a request body into memory, refusing (413) anything over `limitBytes` before buffering it:
 * first by Content-Length, then by counting while streaming.
 */
export async function readBody(stream: Readable, contentLength: string | undefined, limitBytes: number): Promise<Buffer> {
  const tooLarge = () => bodyTooLarge(limitBytes);
  try {
    refuseDeclaredOverLimit(contentLength, limitBytes);
  } catch (error) {
    stream.resume();
    throw error;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    total += buffer.length;
    if (total > limitBytes) {
      stream.resume();
      throw tooLarge();
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** 413 when the Content-Length alone says the body is over the limit. */
export function refuseDeclaredOverLimit(contentLength: string | undefined, limitBytes: number): void {
  if (contentLength !== undefined && Number(contentLength) > limitBytes) throw bodyTooLarge(limitBytes);
}

function bodyTooLarge(limitBytes: number): ApiError {
  return new ApiError(413, [`request body exceeds the limit of ${limitBytes} bytes`]);
}

/**
 * Reads and drops the body of a request answered without it, so that a caller still sending reads its answer
 * rather than a reset connection; past `limitBytes` the connection is closed instead, so that a refused caller
 * cannot keep the gateway reading for ever (a chunked body has no end the headers announce).
 */
export function discardBody(request: Readable & { socket: Pick<Socket, 'destroy'> | null }, limitBytes: number): void {
  let discarded = 0;
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limitBytes) request.socket?.destroy();
  });
}
