import type { TableDefinition } from '@svc/contracts';
import type { SeedChunkPlan, SeedKeyRange } from '@svc/engines';
import type { Pool } from 'pg';
import { openTransaction, quoteLiteral, rollbackAndRelease } from '@svc/postgres/common';
import { readIncarnation } from './incarnation';
import { qualifiedName, quoteIdent } from './identifiers';
import { READ_TRANSACTION_SQL, SNAPSHOT_VERSION_SQL } from './read-sql';

/** A seed is cut into at most this many chunks, however large its table: the registry keeps a row per chunk. */
export const MAX_SEED_CHUNKS = 4096;
/** Sampled keys per chunk the bounds are picked from: more evens the chunks out, at the price of a longer sample. */
const SAMPLED_KEYS_PER_CHUNK = 20;
/** The row size assumed when the planner has no row count (a table never analysed): only the sample's size depends on it. */
const ASSUMED_ROW_BYTES = 100;

/** `$1` the table (qualified, quoted): its size on disk and the planner's row count (-1, or 0, when never analysed). */
const TABLE_SIZE_SQL = `select pg_catalog.pg_table_size($1::regclass)::float8 as bytes, c.reltuples::float8 as rows
  from pg_catalog.pg_class as c where c.oid = $1::regclass`;

/**
 * The capture horizon first (the version of a snapshot opened before any chunk's), then key bounds that cut the table
 * into chunks of about `chunkBytes` of its size on disk, picked from a block sample of its keys (TABLESAMPLE SYSTEM reads
 * whole pages at random: cheap on any size, and bounds need not be exact, only ordered). A table under `chunkBytes` is
 * one chunk (no bounds).
 */
export async function planSeedChunks(pool: Pool, definition: TableDefinition, chunkBytes: number): Promise<SeedChunkPlan> {
  const sourceIncarnation = await readIncarnation(pool);
  const client = await openTransaction(pool, READ_TRANSACTION_SQL);
  try {
    const version = (await client.query<{ version: string }>(SNAPSHOT_VERSION_SQL)).rows[0]?.version;
    if (version === undefined) throw new Error('the snapshot version query returned no row');
    const table = qualifiedName(definition.table);
    const size = (await client.query<{ bytes: number; rows: number }>(TABLE_SIZE_SQL, [table])).rows[0];
    const bytes = size?.bytes ?? 0;
    const chunks = Math.min(MAX_SEED_CHUNKS, Math.ceil(bytes / Math.max(1, chunkBytes)));
    if (chunks <= 1) return { startVersion: version, sourceIncarnation, bounds: [] };
    const rows = size !== undefined && size.rows > 0 ? size.rows : bytes / ASSUMED_ROW_BYTES;
    const percent = Math.min(100, (100 * chunks * SAMPLED_KEYS_PER_CHUNK) / Math.max(1, rows));
    const keys = definition.primaryKey.map(quoteIdent);
    const sample = await client.query<Record<string, string>>({
      text: `select ${keys.map((key, index) => `${key}::text as k${index}`).join(', ')}
  from ${table} tablesample system (${percent.toFixed(6)}) order by ${keys.join(', ')}`,
    });
    const sampled = sample.rows.map((row) => definition.primaryKey.map((_, index) => String(row[`k${index}`])));
    return { startVersion: version, sourceIncarnation, bounds: boundsOf(sampled, chunks) };
  } finally {
    await rollbackAndRelease(client);
  }
}

/** `chunks - 1` ascending bounds taken evenly from the sorted sample; repeated keys give one bound. */
export function boundsOf(sortedKeys: readonly string[][], chunks: number): string[][] {
  const bounds: string[][] = [];
  for (let chunk = 1; chunk < chunks; chunk += 1) {
    const key = sortedKeys[Math.floor((chunk * sortedKeys.length) / chunks)];
    if (key === undefined) continue;
    const last = bounds[bounds.length - 1];
    if (last === undefined || last.some((text, index) => text !== key[index])) bounds.push(key);
  }
  return bounds;
}

/**
 * The condition of a chunk's rows, in the key's order: a row comparison the key's index serves. Each bound's texts are
 * literals of unknown type, so each takes its key column's type (and collation) as the sample's ORDER BY compared them.
 */
export function keyRangeCondition(definition: TableDefinition, range: SeedKeyRange): string | null {
  // One column compares as itself; more as a row (a parenthesised list of two or more is a row constructor).
  const list = (items: readonly string[]): string => (items.length === 1 ? (items[0] ?? '') : `(${items.join(', ')})`);
  const keys = list(definition.primaryKey.map(quoteIdent));
  const bound = (texts: readonly string[]): string => {
    if (texts.length !== definition.primaryKey.length) throw new Error(`a chunk bound has ${texts.length} value(s) for a key of ${definition.primaryKey.length} column(s)`);
    return list(texts.map(quoteLiteral));
  };
  const conditions = [
    ...(range.lower === null ? [] : [`${keys} >= ${bound(range.lower)}`]),
    ...(range.upper === null ? [] : [`${keys} < ${bound(range.upper)}`]),
  ];
  return conditions.length === 0 ? null : conditions.join(' and ');
}
