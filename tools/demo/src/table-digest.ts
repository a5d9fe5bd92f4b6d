import type { Pool } from 'pg';
import type { SampleTable } from './sample-source';

export interface Digest {
  rows: number;
  /** md5 of every row's text in key order; equal digests mean equal tables, row for row. */
  hash: string;
}

export function digestSql(table: string, sample: SampleTable): string {
  return `SELECT count(*)::int AS rows, md5(coalesce(string_agg(r::text, '|' ORDER BY ${sample.orderBy}), '')) AS hash
            FROM (SELECT ${sample.columns} FROM ${table}) r`;
}

export async function digestOf(pool: Pool, table: string, sample: SampleTable): Promise<Digest> {
  const result = await pool.query<{ rows: number; hash: string }>(digestSql(table, sample));
  const row = result.rows[0];
  return { rows: row?.rows ?? -1, hash: row?.hash ?? '' };
}

/** The warehouse side of a sample table, or null while the table does not exist yet. */
export async function warehouseDigestOf(pool: Pool, schema: string, sample: SampleTable): Promise<Digest | null> {
  try {
    return await digestOf(pool, `"${schema}"."${sample.target}"`, sample);
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return null; // undefined_table
    throw error;
  }
}

export function sameDigest(a: Digest | null, b: Digest | null): boolean {
  return a !== null && b !== null && a.rows === b.rows && a.hash === b.hash;
}
