import type { TableDefinition } from '@svc/contracts';
import { distinctBounds, seedChunkCount, seedSamplePercent, type SeedChunkPlan, type SeedKeyRange } from '@svc/engines';
import type { Pool } from 'pg';
import { openTransaction, quoteLiteral, rollbackAndRelease } from '@svc/postgres/common';
import { readIncarnation } from './incarnation';
import { qualifiedName, quoteIdent } from './identifiers';
import { READ_TRANSACTION_SQL, SNAPSHOT_VERSION_SQL } from './read-sql';

const PAGE_BYTES = 8192;

/** `$1` the table (qualified, quoted): its size on disk and its main fork's pages. */
const TABLE_SIZE_SQL = `select pg_catalog.pg_table_size($1::regclass)::float8 as bytes, pg_catalog.pg_relation_size($1::regclass)::float8 / ${PAGE_BYTES} as pages`;

/**
 * The capture horizon first (the version of a snapshot opened before any chunk's), then key bounds that cut the table
 * into chunks of about `chunkBytes` of its size on disk: the first keys of equal buckets of a sample of its keys
 * (TABLESAMPLE SYSTEM reads whole pages at random, SAMPLED_PAGES_PER_CHUNK per chunk (@svc/engines): cheap on any size, and bounds need
 * not be exact, only ordered). A table under `chunkBytes` is one chunk (no bounds).
 */
export async function planSeedChunks(pool: Pool, definition: TableDefinition, chunkBytes: number): Promise<SeedChunkPlan> {
  const sourceIncarnation = await readIncarnation(pool);
  const client = await openTransaction(pool, READ_TRANSACTION_SQL);
  try {
    const version = (await client.query<{ version: string }>(SNAPSHOT_VERSION_SQL)).rows[0]?.version;
    if (version === undefined) throw new Error('the snapshot version query returned no row');
    const table = qualifiedName(definition.table);
    const size = (await client.query<{ bytes: number; pages: number }>(TABLE_SIZE_SQL, [table])).rows[0];
    const bytes = size?.bytes ?? 0;
    const chunks = seedChunkCount(bytes, chunkBytes);
    if (chunks <= 1) return { startVersion: version, sourceIncarnation, bounds: [] };
    const percent = seedSamplePercent(chunks, size?.pages ?? 1);
    const sample = await client.query<Record<string, string>>({ text: bucketStartsSql(definition, table, percent, chunks) });
    const starts = sample.rows.map((row) => definition.primaryKey.map((_, index) => String(row[`k${index}`])));
    return { startVersion: version, sourceIncarnation, bounds: distinctBounds(starts) };
  } finally {
    await rollbackAndRelease(client);
  }
}

/**
 * The first key of each of `chunks` equal buckets of the sampled keys in key order (the sort and the bucketing done by
 * the server, so only `chunks` keys travel), ascending.
 */
function bucketStartsSql(definition: TableDefinition, table: string, percent: number, chunks: number): string {
  const keys = definition.primaryKey.map(quoteIdent);
  return `select ${keys.map((key, index) => `${key}::text as k${index}`).join(', ')}
  from (select distinct on (bucket) ${keys.join(', ')}, bucket
          from (select ${keys.join(', ')}, ntile(${chunks}) over (order by ${keys.join(', ')}) as bucket
                  from ${table} tablesample system (${percent.toFixed(6)})) as sampled
         order by bucket, ${keys.join(', ')}) as starts
  where bucket > 1
  order by bucket`;
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
