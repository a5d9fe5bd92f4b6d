import type { CsvChunks } from '@svc/engines';

export { copyIn } from '@svc/postgres-common';

/** Reads `rows` to the end, dropping them, so that whatever else feeds on the same iteration still sees every byte. */
export async function drain(rows: CsvChunks): Promise<number> {
  let bytes = 0;
  for await (const chunk of rows) bytes += chunk.length;
  return bytes;
}
