import { Portable, type BatchDescriptor, type StagedFiles, type TableDefinition } from '@svc/contracts';
import type { WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { RedshiftOnPostgresClient } from './redshift-on-postgres';
import { MemoryParts, redshiftOnPostgres } from './testing/redshift-on-postgres-warehouse';

/**
 * The Redshift dialect on the test hook's PostgreSQL that behaves as Redshift where the two differ (redshift-on-postgres.ts,
 * the sessions the connector opens for dialect 'postgres', redshiftOnPostgres; a double, not a Redshift):
 * - text `=` ignores trailing blanks, as Redshift's does for VARCHAR and CHAR: "trailing spaces in VARCHAR and CHAR
 *   values are treated as semantically insignificant when values are compared"
 *   (https://docs.aws.amazon.com/redshift/latest/dg/r_Character_types.html).
 * - names are folded: "ASCII letters in standard and delimited identifiers are case-insensitive and are folded to
 *   lowercase in the database" while enable_case_sensitive_identifier is off
 *   (https://docs.aws.amazon.com/redshift/latest/dg/r_names.html,
 *   https://docs.aws.amazon.com/redshift/latest/dg/r_enable_case_sensitive_identifier.html): the catalog holds the
 *   lower-cased names, and a lookup by the mixed-case name finds nothing.
 * - the database is case-insensitive, as one created `COLLATE CASE_INSENSITIVE`: "If CASE_INSENSITIVE is specified,
 *   all CHAR or VARCHAR columns use case-insensitive collation" (https://docs.aws.amazon.com/redshift/latest/dg/r_CREATE_DATABASE.html,
 *   "Database collation"); a column with 'john' and 'JOHN' returns both for `= 'john'`, and `COLLATE(col1,
 *   'case_sensitive') = 'john'` returns john only (https://docs.aws.amazon.com/redshift/latest/dg/r_COLLATE.html).
 * - GETDATE() is the start of the statement in whole seconds: it "returns the start date or time of the current
 *   statement, even when it is within a transaction block", and its example shows `2008-12-04 16:10:43`
 *   (https://docs.aws.amazon.com/redshift/latest/dg/r_GETDATE.html); the warehouse must use SYSDATE instead.
 */
let database: TempDatabase;
let sql: Client;
let warehouse: WarehouseConnector;

const parts = new MemoryParts();

beforeAll(async () => {
  database = await createTempDatabase('rs_semantics');
  sql = new Client({ connectionString: database.url });
  await sql.connect();
  await sql.query(`CREATE FUNCTION getdate() RETURNS timestamp LANGUAGE sql STABLE AS $$ SELECT date_trunc('second', statement_timestamp() AT TIME ZONE 'UTC') $$`);
  warehouse = redshiftOnPostgres(database.url);
});

afterAll(async () => {
  await warehouse.close();
  await sql.end();
  await database.drop();
});

const codes: TableDefinition = {
  table: { schema: 'public', name: 'codes' },
  columns: [
    { name: 'code', sourceType: 'text', portableType: Portable.text(), nullable: false },
    { name: 'label', sourceType: 'text', portableType: Portable.text(), nullable: true },
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
  it('the double compares and names as Redshift: trailing blanks are insignificant to = and <>, quoted names are folded', async () => {
    const probe: Client = new RedshiftOnPostgresClient({ connectionString: database.url });
    await probe.connect();
    try {
      const compared = await probe.query(`SELECT 'a'::varchar = 'a '::varchar AS same, 'a'::varchar <> 'a '::varchar AS differ, 'a'::varchar = 'b'::varchar AS other, octet_length('a '::varchar) AS kept`);
      expect(compared.rows).toEqual([{ same: true, differ: false, other: false, kept: 2 }]);
      await probe.query(`CREATE TABLE "Probe_Case" ("Mixed_Column" integer)`);
      const stored = await sql.query(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name ILIKE 'probe_case'`);
      expect(stored.rows).toEqual([{ table_name: 'probe_case', column_name: 'mixed_column' }]);
      expect((await probe.query(`SELECT 'Mixed' AS "Value"`)).rows).toEqual([{ value: 'Mixed' }]);
    } finally {
      await probe.end();
    }
  });

  it("the double is a case-insensitive database: r_COLLATE.html's tables T and A answer as the page shows", async () => {
    const probe: Client = new RedshiftOnPostgresClient({ connectionString: database.url });
    await probe.connect();
    const values = async (query: string) => (await probe.query<{ col1: string }>(query)).rows.map((row) => row.col1).sort();
    try {
      await probe.query('CREATE TABLE probe_t ( col1 Varchar(20) COLLATE case_sensitive )');
      await probe.query(`INSERT INTO probe_t VALUES ('john'),('JOHN')`);
      expect(await values(`SELECT * FROM probe_t WHERE col1 = 'john'`)).toEqual(['john']);
      expect(await values(`SELECT * FROM probe_t WHERE COLLATE(col1, 'case_insensitive') = 'john'`)).toEqual(['JOHN', 'john']);
      await probe.query('CREATE TABLE probe_a ( col1 Varchar(20) COLLATE case_insensitive )');
      await probe.query(`INSERT INTO probe_a VALUES ('john'),('JOHN')`);
      expect(await values(`SELECT * FROM probe_a WHERE col1 = 'john'`)).toEqual(['JOHN', 'john']);
      expect(await values(`SELECT * FROM probe_a WHERE COLLATE(col1, 'case_sensitive') = 'john'`)).toEqual(['john']);
      // A column declared without COLLATE takes the database's: case-insensitive here.
      await probe.query('CREATE TABLE probe_default ( col1 VARCHAR(20) )');
      await probe.query(`INSERT INTO probe_default VALUES ('john'),('JOHN'),('john ')`);
      expect(await values(`SELECT * FROM probe_default WHERE col1 = 'john'`)).toEqual(['JOHN', 'john', 'john ']);
      expect(await values(`SELECT * FROM probe_default WHERE COLLATE(col1, 'case_sensitive') = COLLATE('john', 'case_sensitive')`)).toEqual(['john', 'john ']);
      await expect(probe.query(`SELECT * FROM probe_default WHERE COLLATE(col1, 'de_DE') = 'john'`)).rejects.toThrow('the Redshift double cannot map');
    } finally {
      await probe.end();
    }
  });

  it.each([
    ['Type1', 'true'],
    ['Type2', 'svc_sys_is_current'],
  ] as const)('%s: a change of the key "john" leaves the key "JOHN" as it is', async (scdType, isCurrent) => {
    const where: WarehouseTableOptions = { schema: `rs_case_keys_${scdType.toLowerCase()}`, scdType, addUpdateTimestamp: false };
    await warehouse.ensureTable(codes, where);
    await load({ kind: 'seed', seedId: 'A', part: 0, final: true, startVersion: '1' }, `"john","lower"\n"JOHN","upper"\n`, where);
    await load({ kind: 'changes', fromVersion: '1', toVersion: '2' }, `"U","john","lower changed"\n`, where);
    expect(await current(where, isCurrent)).toEqual([
      ['john', 'lower changed'],
      ['JOHN', 'upper'],
    ]);
    await load({ kind: 'changes', fromVersion: '2', toVersion: '3' }, `"D","john",\\N\n`, where);
    expect(await current(where, scdType === 'Type1' ? 'true' : 'svc_sys_is_current AND NOT svc_sys_is_deleted')).toEqual([['JOHN', 'upper']]);
  });

  it('Type2: an update that changes only the case of a value closes the old version', async () => {
    const where: WarehouseTableOptions = { schema: 'rs_case_values', scdType: 'Type2', addUpdateTimestamp: false };
    await warehouse.ensureTable(codes, where);
    await load({ kind: 'changes', fromVersion: '1', toVersion: '2' }, `"I","k","john"\n`, where);
    await load({ kind: 'changes', fromVersion: '2', toVersion: '3' }, `"U","k","John"\n`, where);
    expect(await current(where, 'svc_sys_is_current')).toEqual([['k', 'John']]);
    expect(await current(where, 'NOT svc_sys_is_current')).toEqual([['k', 'john']]);
  });

  it.each([
    ['Type1', 'true'],
    ['Type2', 'svc_sys_is_current'],
  ] as const)('%s: a reseed replaces a value whose case changed, and removes a key whose case twin stays', async (scdType, isCurrent) => {
    const where: WarehouseTableOptions = { schema: `rs_case_reseed_${scdType.toLowerCase()}`, scdType, addUpdateTimestamp: false };
    await warehouse.ensureTable(codes, where);
    await load({ kind: 'seed', seedId: 'A', part: 0, final: true, startVersion: '1' }, `"k","john"\n"x","one"\n"X","one"\n`, where);
    await load({ kind: 'seed', seedId: 'B', part: 0, final: true, startVersion: '2' }, `"k","John"\n"x","one"\n`, where);
    expect(await current(where, isCurrent)).toEqual([
      ['k', 'John'],
      ['x', 'one'],
    ]);
  });

  it("the schema's batch log tells apart two batch ids that differ only in case", async () => {
    // Batch ids name the source table (`<replication>/<schema>.<table>/changes/<from>-<to>`): a PostgreSQL source's
    // "dbo"."Orders" and "DBO"."orders" load into two tables of one schema, and one cycle's batches share their versions.
    const where: WarehouseTableOptions = { schema: 'rs_case_batches', scdType: 'Type1', addUpdateTimestamp: false };
    await warehouse.ensureTable(codes, where);
    await load({ kind: 'changes', fromVersion: '1', toVersion: '2' }, `"I","k","one"\n`, where);
    const loaded = `codes:${batchCount}`;
    expect(await warehouse.hasLoaded(loaded, where)).toBe(true);
    expect(await warehouse.hasLoaded(loaded.toUpperCase(), where)).toBe(false);
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

  it('finds a mixed-case table it created under the name Redshift stored for it', async () => {
    const where: WarehouseTableOptions = { schema: 'RS_Case', scdType: 'Type1', addUpdateTimestamp: false };
    const orders: TableDefinition = { ...codes, table: { schema: 'public', name: 'Orders' } };
    expect(await warehouse.ensureTable(orders, where)).toEqual({ created: true, addedColumns: [] });
    // CREATE TABLE "RS_Case"."Orders" on Redshift stores rs_case.orders.
    expect((await sql.query(`SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema ILIKE 'rs_case' ORDER BY 2`)).rows).toEqual([
      { table_schema: 'rs_case', table_name: 'orders' },
      ...['svc_sys_ctl_orders', 'svc_sys_loaded_batches', 'svc_sys_owned_tables', 'svc_sys_table_fences', 'svc_sys_table_seeds'].map((table) => ({ table_schema: 'rs_case', table_name: table })),
    ].sort((a, b) => (a.table_name < b.table_name ? -1 : 1)));
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
