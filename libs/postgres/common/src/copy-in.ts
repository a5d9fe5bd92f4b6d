import { pipeline } from 'node:stream/promises';
import type { CsvChunks } from '@svc/engines';
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * Streams `rows` into `COPY … FROM STDIN`, waiting for the connection to drain whenever the copy stream asks
 * for it; returns the number of rows the server took. When the COPY fails, the iteration of `rows` stops
 * (the caller's transaction is then rolled back).
 */
export async function copyIn(client: ClientBase, copySql: string, rows: CsvChunks): Promise<number> {
  const sink = client.query(copyFrom(copySql));
  await pipeline(rows, sink);
  return sink.rowCount;
}
