import { Client } from 'pg';
import { Portable } from '@svc/contracts';
import { canonicalRowText, rowDigestText, type ChecksumColumn } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { POSTGRES_CHECKSUM_DIALECT } from './checksum-dialect';

/**
 * A row's text is hashed whole, and on Redshift it is a VARCHAR of at most 65535 bytes (r_Character_types.html):
 * a row of two 40,000-character texts used to make a row text of 80,000 bytes, which Redshift cannot hold. Its long
 * fields now travel as their MD5. PostgreSQL has no such bound, so it measures what a Redshift cluster would be given.
 */
describe('the row text of a wide row on PostgreSQL', () => {
  let database: TempDatabase;
  let client: Client;

  beforeAll(async () => {
    database = await createTempDatabase('svc_row_text_budget');
    client = new Client({ connectionString: database.url });
    await client.connect();
    await client.query(`CREATE TABLE wide (id bigint PRIMARY KEY, body text, summary text, title varchar(200));
      INSERT INTO wide VALUES (1, repeat('é|\\', 13334), repeat('x', 40000), 'short'), (2, NULL, '', NULL)`);
  });

  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('stays within Redshift\'s 65535 bytes and still tells every field apart', async () => {
    const columns: ChecksumColumn[] = [
      { sql: 't.id', type: Portable.bigint(), declaredType: 'bigint' },
      { sql: 't.body', type: Portable.text(), declaredType: 'text' },
      { sql: 't.summary', type: Portable.text(), declaredType: 'text' },
      { sql: 't.title', type: Portable.varchar(200), declaredType: 'varchar(200)' },
    ];
    const { rows } = await client.query<{ id: string; whole: number; hashed: number; digest: string }>(
      `SELECT t.id, octet_length(${canonicalRowText(POSTGRES_CHECKSUM_DIALECT, columns)}) AS whole, octet_length(${rowDigestText(POSTGRES_CHECKSUM_DIALECT, columns)}) AS hashed,
              md5(${rowDigestText(POSTGRES_CHECKSUM_DIALECT, columns)}) AS digest
         FROM wide AS t ORDER BY t.id`,
    );
    expect(rows[0]?.whole).toBeGreaterThan(65535);
    expect(rows.map((row) => row.hashed <= 65535)).toEqual([true, true]);
    // One character changed in a digested field changes the row's digest.
    await client.query(`UPDATE wide SET summary = repeat('x', 39999) || 'y' WHERE id = 1`);
    const [changed] = (await client.query<{ digest: string }>(`SELECT md5(${rowDigestText(POSTGRES_CHECKSUM_DIALECT, columns)}) AS digest FROM wide AS t WHERE t.id = 1`)).rows;
    expect(changed?.digest).not.toBe(rows[0]?.digest);
  });
});
