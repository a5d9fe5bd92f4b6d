import type { BatchDescriptor, StagedFiles, TableDefinition } from '@svc/contracts';
import type { CsvChunks, StagedFileReader, WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { stdinCopyLoader } from './file-loaders';
import { createRedshiftWarehouse } from './redshift-warehouse';

/**
 * The Redshift dialect on a PostgreSQL made to behave as Redshift where the two differ (a double, not a Redshift):
 * - text `=` ignores trailing blanks, as Redshift's does for VARCHAR and CHAR: "trailing spaces in VARCHAR and CHAR
 *   values are treated as semantically insignificant when values are compared"
 *   (https://docs.aws.amazon.com/redshift/latest/dg/r_Character_types.html). An operator of the same signature in a
 *   schema placed before pg_catalog in the search path takes the place of PostgreSQL's.
 * - the catalog holds names with their ASCII letters lower-cased, quoted or not, as Redshift stores them while
 *   enable_case_sensitive_identifier is off (https://docs.aws.amazon.com/redshift/latest/dg/r_names.html,
 *   https://docs.aws.amazon.com/redshift/latest/dg/r_enable_case_sensitive_identifier.html): tables are made here
 *   under the name Redshift would have stored.
 * - GETDATE() is the start of the statement in whole seconds: it "returns the start date or time of the current
 *   statement, even when it is within a transaction block", and its example shows `2008-12-04 16:10:43`
 *   (https://docs.aws.amazon.com/redshift/latest/dg/r_GETDATE.html).
 */
let database: TempDatabase;
let sql: Client;
let warehouse: WarehouseConnector;

class Parts implements StagedFileReader {
  private readonly parts = new Map<string, string>();

  put(key: string, csv: string): void {
    this.parts.set(key, csv);
  }

  readPart(key: string): Promise<CsvChunks> {
    const bytes = Buffer.from(this.parts.get(key) ?? '', 'utf8');
    return Promise.resolve(
      (async function* () {
        yield bytes;
      })(),
    );
  }
}
const parts = new Parts();

beforeAll(async () => {
  database = await createTempDatabase('rs_semantics');
  sql = new Client({ connectionString: database.url });
  await sql.connect();
  await sql.query(`CREATE SCHEMA redshift_like`);
  await sql.query(`CREATE FUNCTION redshift_like.getdate() RETURNS timestamp LANGUAGE sql STABLE AS $$ SELECT date_trunc('second', statement_timestamp() AT TIME ZONE 'UTC') $$`);
  await sql.query(`CREATE FUNCTION redshift_like.text_eq(a text, b text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$ SELECT pg_catalog.rtrim(a, ' ') OPERATOR(pg_catalog.=) pg_catalog.rtrim(b, ' ') $$`);
  await sql.query(`CREATE OPERATOR redshift_like.= (LEFTARG = text, RIGHTARG = text, FUNCTION = redshift_like.text_eq)`);
  await sql.query(`ALTER DATABASE ${database.name} SET search_path = redshift_like, pg_catalog, public`);
  const url = new URL(database.url);
  warehouse = createRedshiftWarehouse(
    { url: `redshift://${url.hostname}:${url.port || '5432'}`, databaseName: database.name, username: decodeURIComponent(url.username || 'postgres'), password: decodeURIComponent(url.password) },
    { statementTimeoutMs: 30_000, fileLoader: stdinCopyLoader(), dialect: 'postgres', tls: false },
  );
});

afterAll(async () => {
  await warehouse.close();
  await sql.end();
  await database.drop();
});

const codes: TableDefinition = {
  table: { schema: 'public', name: 'codes' },
  columns: [
    { name: 'code', sourceType: 'text', portableType: 'text', nullable: false },
    { name: 'label', sourceType: 'text', portableType: 'text', nullable: true },
  ],
  primaryKey: ['code'],
  estimatedRows: 0,
};

let batchCount = 0;
function load(body: BatchDescriptor['body'], csv: string, where: WarehouseTableOptions): Promise<unknown> {
  batchCount += 1;
  const batch: BatchDescriptor = { batchId: `codes:${batchCount}`, replicationId: 'r1', epoch: 1, definition: codes, body };
  const key = `files/${batch.batchId}/part-00000.csv.gz`;
  parts.put(key, csv);
  const files: StagedFiles = { bucket: 'b', manifestKey: `files/${batch.batchId}/manifest.json`, partKeys: [key] };
  return warehouse.loadBatch(batch, files, parts, where);
}

async function current(where: WarehouseTableOptions, filter: string): Promise<unknown[][]> {
  const result = await sql.query({ text: `SELECT code, label FROM ${where.schema}.codes WHERE ${filter} ORDER BY octet_length(code), 2`, rowMode: 'array' });
  return result.rows as unknown[][];
}

describe('the Redshift dialect on a PostgreSQL that compares and names as Redshift does', () => {
  it('the double compares as Redshift: trailing blanks are insignificant to =', async () => {
    const probe = new Client({ connectionString: database.url });
    await probe.connect();
    try {
      expect((await probe.query(`SELECT 'a'::varchar = 'a '::varchar AS same`)).rows).toEqual([{ same: true }]);
    } finally {
      await probe.end();
    }
  });

  it.each([
    ['Type1', 'true'],
    ['Type2', 'svc_sys_is_current'],
  ] as const)('%s: a change of the key "a " leaves the key "a" as it is', async (scdType, isCurrent) => {
    const where: WarehouseTableOptions = { schema: `rs_keys_${scdType.toLowerCase()}`, scdType, addUpdateTimestamp: false };
    await warehouse.ensureTable(codes, where);
    await load({ kind: 'seed', seedId: 'A', part: 0, final: true, startVersion: '1' }, `"a","plain"\n"a ","blank"\n`, where);
    expect(await current(where, isCurrent)).toEqual([
      ['a', 'plain'],
      ['a ', 'blank'],
    ]);
    await load({ kind: 'changes', fromVersion: '1', toVersion: '2' }, `"U","a ","blank changed"\n`, where);
    expect(await current(where, isCurrent)).toEqual([
      ['a', 'plain'],
      ['a ', 'blank changed'],
    ]);
    await load({ kind: 'changes', fromVersion: '2', toVersion: '3' }, `"D","a ",\\N\n`, where);
    expect(await current(where, scdType === 'Type1' ? 'true' : 'svc_sys_is_current AND NOT svc_sys_is_deleted')).toEqual([['a', 'plain']]);
  });

  it('a reseed that changes only "a " leaves "a" as it is', async () => {
    const where: WarehouseTableOptions = { schema: 'rs_keys_reseed', scdType: 'Type2', addUpdateTimestamp: false };
    await warehouse.ensureTable(codes, where);
    await load({ kind: 'seed', seedId: 'A', part: 0, final: true, startVersion: '1' }, `"a","plain"\n"a ","blank"\n`, where);
    await load({ kind: 'seed', seedId: 'B', part: 0, final: true, startVersion: '2' }, `"a","plain"\n"a ","blank changed"\n`, where);
    expect(await current(where, 'NOT svc_sys_is_current')).toEqual([['a ', 'blank']]);
  });

  it('Type2: two versions of one key loaded within one second get distinct validity, and one ends where the next begins', async () => {
    const where: WarehouseTableOptions = { schema: 'rs_validity', scdType: 'Type2', addUpdateTimestamp: false };
    await warehouse.ensureTable(codes, where);
    // Both loads start in the first half of one second of the clock the server shares with this process.
    while (Date.now() % 1000 > 300) await new Promise((tick) => setTimeout(tick, 5));
    await load({ kind: 'changes', fromVersion: '1', toVersion: '2' }, `"I","k","one"\n`, where);
    await load({ kind: 'changes', fromVersion: '2', toVersion: '3' }, `"U","k","two"\n`, where);
    const versions = await sql.query<{ label: string; valid_from: string; valid_to: string | null }>(
      `SELECT label, svc_sys_valid_from::text AS valid_from, svc_sys_valid_to::text AS valid_to FROM rs_validity.codes WHERE code = 'k' ORDER BY svc_sys_row_id`,
    );
    const [first, second] = versions.rows;
    expect([first?.label, second?.label]).toEqual(['one', 'two']);
    expect(second?.valid_from !== undefined && first?.valid_from !== undefined && second.valid_from > first.valid_from).toBe(true);
    expect(first?.valid_to).toBe(second?.valid_from);
    expect(second?.valid_to).toBeNull();
  });

  it('finds a mixed-case table under the name Redshift stored for it', async () => {
    // CREATE TABLE "RS_Case"."Orders" on Redshift stores rs_case.orders.
    await sql.query(`CREATE SCHEMA rs_case`);
    await sql.query(`CREATE TABLE rs_case.orders (id integer)`);
    const where: WarehouseTableOptions = { schema: 'RS_Case', scdType: 'Type1', addUpdateTimestamp: false };
    expect(await warehouse.hasTable({ schema: 'public', name: 'Orders' }, where)).toBe(true);
    expect(await warehouse.hasTable({ schema: 'public', name: 'Missing' }, where)).toBe(false);
  });

  it('a table the service recorded is the service\'s under any case of its name, as it is one table in Redshift', async () => {
    const where: WarehouseTableOptions = { schema: 'rs_owned', scdType: 'Type1', addUpdateTimestamp: false };
    expect(await warehouse.ensureTable(codes, where)).toEqual({ created: true, addedColumns: [] });
    // "Codes" names the same table on Redshift: nothing made again, and one record of it, not two.
    expect(await warehouse.ensureTable({ ...codes, table: { schema: 'public', name: 'Codes' } }, where)).toEqual({ created: false, addedColumns: [] });
    expect((await sql.query(`SELECT table_name FROM rs_owned.svc_sys_owned_tables ORDER BY 1`)).rows).toEqual([{ table_name: 'codes' }, { table_name: 'svc_seed_codes' }]);
  });
});
