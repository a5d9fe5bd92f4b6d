/** A seed is cut into at most this many chunks, however large its table: the registry keeps a row per chunk. */
export const MAX_SEED_CHUNKS = 4096;

/**
 * Sampled pages per chunk the bounds are picked from. A page sample (PostgreSQL's and SQL Server's TABLESAMPLE SYSTEM)
 * takes whole pages, whose keys sit close together when rows went in in key order: bounds from a few pages would cut a
 * few narrow key ranges and leave the rest to one chunk (seen: 25 rows in one chunk, 35,100 in the next). Pages spread
 * over the table spread the bounds.
 */
export const SAMPLED_PAGES_PER_CHUNK = 10;

/** How many chunks a table of `tableBytes` on disk is cut into for chunks of about `chunkBytes` (1: not cut). */
export function seedChunkCount(tableBytes: number, chunkBytes: number): number {
  if (!Number.isFinite(tableBytes) || tableBytes <= 0) return 1;
  return Math.max(1, Math.min(MAX_SEED_CHUNKS, Math.ceil(tableBytes / Math.max(1, chunkBytes))));
}

/** The percent of a table's `pages` a page sample takes for bounds of `chunks` chunks (at most 100). */
export function seedSamplePercent(chunks: number, pages: number): number {
  return Math.min(100, (100 * chunks * SAMPLED_PAGES_PER_CHUNK) / Math.max(1, pages));
}

/** Sampled bucket starts (ascending key texts) as bounds: a key repeated (a bucket of one key) gives one bound. */
export function distinctBounds(starts: readonly (readonly string[])[]): string[][] {
  const bounds: string[][] = [];
  for (const key of starts) {
    const last = bounds[bounds.length - 1];
    if (last === undefined || last.some((text, index) => text !== key[index])) bounds.push([...key]);
  }
  return bounds;
}
