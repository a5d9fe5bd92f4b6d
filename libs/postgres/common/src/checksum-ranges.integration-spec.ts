import { Pool } from 'pg';
import { Portable } from '@svc/contracts';
import { checksumReader, keyRanges, segmentOf, type BucketSum, type ChecksumTable } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { POSTGRES_CHECKSUM_DIALECT } from './checksum-dialect';
import { openChecksumSession } from './checksum-session';


const table = (name: string, keyType: 'integer' | 'text'): ChecksumTable => ({
  from: `public.${name} AS t`,
  where: null,
  columns: [
    { sql: 't.id', type: keyType === 'integer' ? Portable.integer() : Portable.text(), declaredType: keyType === 'integer' ? 'bigint' : 'text' },
    { sql: 't.v', type: Portable.text(), declaredType: 'text' },
  ],
  keyColumns: [{ sql: 't.id', type: keyType === 'integer' ? Portable.integer() : Portable.text(), declaredType: keyType === 'integer' ? 'bigint' : 'text' }],
});

function added(sums: BucketSum[][]): Map<number, { rows: number; sum: bigint }> {
  const total = new Map<number, { rows: number; sum: bigint }>();
  for (const sum of sums.flat()) {
    const before = total.get(sum.bucket) ?? { rows: 0, sum: 0n };
    total.set(sum.bucket, { rows: before.rows + sum.rows, sum: before.sum + sum.sum });
  }
  return total;
}

/** A capped validation reads a table keyed by one integer column range by range (table-comparison.ts): the ranges' sums must be the table's. */
describe('checksums of key ranges on PostgreSQL', () => {
  let pool: Pool;
  let database: TempDatabase;

  beforeAll(async () => {
    database = await createTempDatabase('svc_checksum_ranges');
    pool = new Pool({ connectionString: database.url, max: 2 });
    await pool.query(`CREATE TABLE ranged (id bigint PRIMARY KEY, v text);
      INSERT INTO ranged SELECT g, 'value ' || g FROM generate_series(-3000, 9000000000, 3000001) AS g;
      INSERT INTO ranged SELECT g, 'value ' || g FROM generate_series(1, 5000) AS g;
      INSERT INTO ranged SELECT g, 'value ' || g FROM generate_series(-9000000000, -5000, 300007) AS g;
      CREATE TABLE texted (id text PRIMARY KEY, v text);
      INSERT INTO texted VALUES ('a', '1'), ('b', '2')`);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('gives a table\'s integer key bounds, and bucket, segment and key reads whose ranges add up to the whole table', async () => {
    const session = await openChecksumSession(pool);
    const reader = checksumReader(POSTGRES_CHECKSUM_DIALECT, table('ranged', 'integer'), session.query, session.close);
    try {
      const bounds = await reader.integerKeyBounds();
      // Keys past 2^32 and below 0: bigint keys travel as text, and their ranges as integer literals.
      expect(bounds).toEqual({ min: -9_000_000_000n, max: 9_000_000_000n });
      const ranges = keyRanges(bounds ?? { min: 0n, max: 0n }, 7);
      expect(ranges).toHaveLength(7);
      const whole = added([await reader.bucketSums(64)]);
      expect(added(await Promise.all(ranges.map((range) => reader.bucketSums(64, range))))).toEqual(whole);
      const segments = { buckets: 64, subBuckets: 4 };
      const chosen = [0, 5, 63];
      expect(added(await Promise.all(ranges.map((range) => reader.segmentSums(segments, chosen, range))))).toEqual(added([await reader.segmentSums(segments, chosen)]));
      const keys = (rows: Awaited<ReturnType<typeof reader.keyDigestsInSegments>>) => rows.map((row) => row.key[0]).sort();
      const ranged = (await Promise.all(ranges.map((range) => reader.keyDigestsInSegments(segments, [1, 2, 3], range)))).flat();
      expect(keys(ranged)).toEqual(keys(await reader.keyDigestsInSegments(segments, [1, 2, 3])));
      expect(ranged.length).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
  });

  it('puts each row in the segment segmentOf computes: from the key itself for an integer key (below 0, past 2^32), from its MD5 for a text key', async () => {
    const segments = { buckets: 16, subBuckets: 8 };
    const everySegment = Array.from({ length: segments.buckets * segments.subBuckets }, (_, index) => index);
    for (const name of ['ranged', 'texted'] as const) {
      const session = await openChecksumSession(pool);
      const reader = checksumReader(POSTGRES_CHECKSUM_DIALECT, table(name, name === 'ranged' ? 'integer' : 'text'), session.query, session.close);
      try {
        const rows = await reader.keyDigestsInSegments(segments, everySegment);
        expect(rows.length).toBe(Number((await pool.query<{ count: string }>(`SELECT count(*) FROM ${name}`)).rows[0]?.count));
        expect(rows.filter((row) => segmentOf(row, segments) !== row.bucket)).toEqual([]);
        const looked = await reader.digestsOfKeys(segments.buckets, rows.slice(0, 50));
        expect(looked.filter((row) => segmentOf(row, { buckets: segments.buckets, subBuckets: 1 }) !== row.bucket)).toEqual([]);
        expect(new Set(rows.map((row) => row.bucket)).size).toBeGreaterThan(name === 'ranged' ? 64 : 1);
      } finally {
        await reader.close();
      }
    }
  });

  it('has no integer key bounds for a text key', async () => {
    const session = await openChecksumSession(pool);
    const reader = checksumReader(POSTGRES_CHECKSUM_DIALECT, table('texted', 'text'), session.query, session.close);
    try {
      expect(await reader.integerKeyBounds()).toBeNull();
    } finally {
      await reader.close();
    }
  });
});
