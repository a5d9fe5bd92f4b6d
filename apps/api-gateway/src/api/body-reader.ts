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
