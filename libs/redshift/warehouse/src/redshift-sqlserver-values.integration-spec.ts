import { Portable, type BatchDescriptor, type TableDefinition } from '@svc/contracts';
import type { WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { RedshiftFileRows, RedshiftValueError, fileRowsLayout } from './redshift-file-rows';
import { MemoryParts, redshiftOnPostgres } from './testing/redshift-on-postgres-warehouse';

/**
 * SQL Server's values as its reader writes them (style 121: `datetime2(7)` with seven fractional digits, `datetimeoffset`
 * with a blank before its offset, upper-case hex), staged by the stager's rewrite for Redshift (RedshiftFileRows) and
 * loaded by the Redshift warehouse on the double (redshift-on-postgres.ts), whose COPY reads the files only as AWS
 * documents (redshift-copy-on-postgres.ts, every page cited there):
 * - "The seconds (SS) field also supports fractional seconds up to a microsecond level of detail", and no form of
 *   DATEFORMAT/TIMEFORMAT 'auto' has a blank before the offset ("YYYY-MM-DD HH:MI:SS+/-TZ | 1997-12-17 07:37:16-08");
 * - "Empty fields for other data types, such as INT, are always loaded with NULL": an empty VARBYTE field is NULL.
 */
let database: TempDatabase;
let sql: Client;
let warehouse: WarehouseConnector;
let batchCount = 0;
const parts = new MemoryParts();

beforeAll(async () => {
  database = await createTempDatabase('rs_sqlserver_values');
  sql = new Client({ connectionString: database.url });
  await sql.connect();
  await sql.query(`SET timezone TO 'UTC'`);
  warehouse = redshiftOnPostgres(database.url);
});

afterAll(async () => {
  await warehouse.close();
  await sql.end();
  await database.drop();
});

const readings: TableDefinition = {
  table: { schema: 'dbo', name: 'readings' },
  columns: [
    { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false },
    { name: 'taken_at', sourceType: 'datetime2(7)', portableType: Portable.timestamp(7), nullable: true },
    { name: 'taken_at_local', sourceType: 'datetimeoffset(7)', portableType: Portable.timestamp(7, true), nullable: true },
    { name: 'time_of_day', sourceType: 'time(7)', portableType: Portable.time(7), nullable: true },
    { name: 'day', sourceType: 'date', portableType: Portable.date(), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};

const blobs: TableDefinition = {
  table: { schema: 'dbo', name: 'blobs' },
  columns: [
    { name: 'hash', sourceType: 'varbinary(32)', portableType: Portable.binary(32), nullable: false },
    { name: 'body', sourceType: 'varbinary(max)', portableType: Portable.binary(), nullable: true },
  ],
  primaryKey: ['hash'],
  estimatedRows: 0,
};

/** The stager's work for one batch (the rows rewritten for Redshift, its files named by a manifest), then the loader's. */
async function stageAndLoad(definition: TableDefinition, body: BatchDescriptor['body'], interchangeCsv: string, where: WarehouseTableOptions): Promise<unknown> {
  batchCount += 1;
  const batch: BatchDescriptor = { batchId: `${definition.table.name}:${batchCount}`, replicationId: 'r1', epoch: 1, definition, body };
  const rewriter = new RedshiftFileRows(fileRowsLayout(batch));
  const file = Buffer.concat([...rewriter.push(Buffer.from(interchangeCsv, 'utf8')), ...rewriter.end()]);
  const key = `files/${batch.batchId}/part-00000.csv.gz`;
  parts.put(key, file);
  return warehouse.loadBatch(batch, { bucket: 'b', manifestKey: `files/${batch.batchId}/manifest.json`, partKeys: [key] }, parts, where);
}

/** Loads a file as written, bypassing the stager: what the double's COPY itself takes. */
function loadFile(definition: TableDefinition, file: string, where: WarehouseTableOptions): Promise<unknown> {
  batchCount += 1;
  const batch: BatchDescriptor = { batchId: `${definition.table.name}:${batchCount}`, replicationId: 'r1', epoch: 1, definition, body: { kind: 'changes', fromVersion: '1', toVersion: '2' } };
  const key = `files/${batch.batchId}/part-00000.csv.gz`;
  parts.put(key, file);
  return warehouse.loadBatch(batch, { bucket: 'b', manifestKey: `files/${batch.batchId}/manifest.json`, partKeys: [key] }, parts, where);
}

const seed: BatchDescriptor['body'] = { kind: 'seed', seedId: 'A', part: 0, final: true, startVersion: '1' };
const changes: BatchDescriptor['body'] = { kind: 'changes', fromVersion: '1', toVersion: '2' };

describe("SQL Server → Redshift dialect on the double whose COPY reads only AWS's documented forms", () => {
  it("the double's COPY refuses a seventh fractional digit and a blank before the offset, and takes the documented forms", async () => {
    const where: WarehouseTableOptions = { schema: 'rs_copy_forms', scdType: 'Type1', addUpdateTimestamp: false };
    await warehouse.ensureTable(readings, where);
    await expect(loadFile(readings, `"I","1","2026-01-02 03:04:05.1234567",\\N,\\N,\\N\n`, where)).rejects.toThrow(/Load into table .* failed.*column taken_at \(timestamp\): Invalid timestamp format/);
    await expect(loadFile(readings, `"I","1",\\N,"2026-01-02 03:04:05.123456 +05:45",\\N,\\N\n`, where)).rejects.toThrow(/column taken_at_local \(timestamptz\): Invalid timestamptz format/);
    await expect(loadFile(readings, `"I","1",\\N,\\N,"03:04:05.1234567",\\N\n`, where)).rejects.toThrow(/column time_of_day \(time\): Invalid time format/);
    expect(await loadFile(readings, `"I","1","2026-01-02 03:04:05.123456","2026-01-02 03:04:05.123456+05:45","03:04:05.123456","2026-01-02"\n`, where)).toEqual({ applied: true, rowCount: 1 });
    const loaded = await sql.query(`SELECT taken_at::text, taken_at_local::text, time_of_day::text, day::text FROM rs_copy_forms.readings`);
    expect(loaded.rows).toEqual([{ taken_at: '2026-01-02 03:04:05.123456', taken_at_local: '2026-01-01 21:19:05.123456+00', time_of_day: '03:04:05.123456', day: '2026-01-02' }]);
  });

  it('loads datetime2(7), datetimeoffset(7) and time(7) rounded to the microsecond as declared, the instant in UTC', async () => {
    const where: WarehouseTableOptions = { schema: 'rs_sqlserver_times', scdType: 'Type1', addUpdateTimestamp: false };
    await warehouse.ensureTable(readings, where);
    const rows =
      '1,2026-01-02 03:04:05.1234567,2026-01-02 03:04:05.1234567 +05:45,03:04:05.1234567,2026-01-02\n' +
      // The 7th digit carries through seconds, minutes, hours, the day, the month and the year.
      '2,2026-12-31 23:59:59.9999999,2026-01-01 00:00:00.0000000 +05:45,23:59:59.9999999,2026-12-31\n' +
      '3,2026-01-02 03:04:05,2026-01-02 03:04:05 -08:00,03:04:05,2026-01-02\n';
    expect(await stageAndLoad(readings, seed, rows, where)).toEqual({ applied: true, rowCount: 3 });
    const loaded = await sql.query({ text: `SELECT id, taken_at::text, taken_at_local::text, time_of_day::text, day::text FROM rs_sqlserver_times.readings ORDER BY id`, rowMode: 'array' });
    expect(loaded.rows).toEqual([
      [1, '2026-01-02 03:04:05.123457', '2026-01-01 21:19:05.123457+00', '03:04:05.123457', '2026-01-02'],
      [2, '2027-01-01 00:00:00', '2025-12-31 18:15:00+00', '24:00:00', '2026-12-31'],
      [3, '2026-01-02 03:04:05', '2026-01-02 11:04:05+00', '03:04:05', '2026-01-02'],
    ]);
  });

  it('stops the table with a reason naming table, column and rule for an empty varbinary key, which COPY would load as NULL', async () => {
    const where: WarehouseTableOptions = { schema: 'rs_sqlserver_keys', scdType: 'Type1', addUpdateTimestamp: false };
    await warehouse.ensureTable(blobs, where);
    const staged = stageAndLoad(blobs, changes, 'I,\\x,\\x00FF\n', where);
    await expect(staged).rejects.toThrow(RedshiftValueError);
    await expect(staged).rejects.toThrow(
      'Warehouse: [dbo].[blobs], row of key (hash), column hash: an empty binary value (zero bytes) in a key column cannot be loaded into Redshift, ' +
        'whose COPY loads an empty VARBYTE field as NULL, and a key is never NULL',
    );
    expect((await sql.query(`SELECT count(*)::int AS n FROM rs_sqlserver_keys.blobs`)).rows).toEqual([{ n: 0 }]);
  });

  it('loads an empty varbinary outside the key as NULL, the loss docs/TYPES.md declares', async () => {
    const where: WarehouseTableOptions = { schema: 'rs_sqlserver_blobs', scdType: 'Type1', addUpdateTimestamp: false };
    await warehouse.ensureTable(blobs, where);
    expect(await stageAndLoad(blobs, changes, 'I,\\x01,\\x\nI,\\x02,\\x00FF\n', where)).toEqual({ applied: true, rowCount: 2 });
    expect((await sql.query({ text: `SELECT hash, body FROM rs_sqlserver_blobs.blobs ORDER BY hash`, rowMode: 'array' })).rows).toEqual([
      ['01', null],
      ['02', '00ff'],
    ]);
  });
});
