import type { CsvChunks } from '@svc/engines';
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';

/** Streams CSV into `COPY … FROM STDIN`; returns the number of rows the server stored. */
export async function copyIn(client: ClientBase, copySql: string, rows: CsvChunks): Promise<number> {
  const sink = client.query(copyFrom(copySql));
  await pipeline(rows, sink);
  return sink.rowCount;
}
