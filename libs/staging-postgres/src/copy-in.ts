import { pipeline } from 'node:stream/promises';
import type { CsvChunks } from '@svc/engines';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * Streams `rows` into `COPY ... FROM STDIN`, waiting for the connection to drain whenever the copy
 * stream asks for it; returns the number of rows the server took. When the COPY fails, the iteration
 * of `rows` stops (the caller's transaction is then rolled back).
 */
export async function copyIn(client: PoolClient, copySql: string, rows: CsvChunks): Promise<number> {
  const copy = client.query(copyFrom(copySql));
  await pipeline(rows, copy);
  return copy.rowCount;
}

/** Reads `rows` to the end, dropping them, so that whatever else feeds on the same iteration still sees every byte. */
export async function drain(rows: CsvChunks): Promise<number> {
  let bytes = 0;
  for await (const chunk of rows) bytes += chunk.length;
  return bytes;
}
