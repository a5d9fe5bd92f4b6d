import { Portable, type BatchDescriptor, type ColumnDefinition, type TableDefinition } from '@svc/contracts';
import type { CsvChunks } from '@svc/engines';
import { CollationStagingDouble } from './collation.double';
import { SqlServerStaging } from './sqlserver-staging';

/**
 * Issue 21 item 3: staging tables and the batch's temporary table as SQL Server collates them. The double
 * (collation.double.ts) applies the documented rules: temporary tables take tempdb's collation, two column
 * references of different collations cannot be compared (Msg 468), a _CI_ key holds 'a' and 'A' as one, and
 * varchar keeps only its code page.
 */
const server = { tempdbCollation: 'SQL_Latin1_General_CP1_CI_AS', databaseCollation: 'Latin1_General_100_CI_AS' };

const definitionOf = (key: ColumnDefinition, ...others: ColumnDefinition[]): TableDefinition => ({
  table: { schema: 'dbo', name: 'codes' },
  columns: [key, ...others],
  primaryKey: [key.name],
  estimatedRows: 0,
});

const changesOf = (definition: TableDefinition, id = 1): BatchDescriptor => ({
  batchId: `r1/dbo.codes/c/${id}`,
  replicationId: 'r1',
  epoch: 1,
  definition,
  body: { kind: 'changes', fromVersion: String(id), toVersion: String(id + 1) },
});

const seedOf = (definition: TableDefinition): BatchDescriptor => ({
  batchId: 'r1/dbo.codes/s/seed-a/0',
  replicationId: 'r1',
  epoch: 1,
  definition,
  body: { kind: 'seed', seedId: 'seed-a', part: 0, final: true, startVersion: '1' },
});

function csv(text: string): CsvChunks {
  return {
    async *[Symbol.asyncIterator]() {
      yield Buffer.from(text);
    },
  };
}

describe('SQL Server staging collations', () => {
  it('applies a change batch with a string key when the staging database and tempdb collate differently (no Msg 468)', async () => {
    const database = new CollationStagingDouble(server);
    const staging = new SqlServerStaging(database);
    const definition = definitionOf({ name: 'code', sourceType: 'nvarchar(10)', portableType: Portable.varchar(10), nullable: false }, { name: 'n', sourceType: 'int', portableType: Portable.integer(), nullable: true });
    await staging.ensureTable(definition);
    await staging.applyBatch(changesOf(definition, 1), csv('I,x,1\nI,y,2\n'));
    await staging.applyBatch(changesOf(definition, 2), csv('U,x,10\nD,y,\n'));
    expect(database.rowsOf('[dbo].[codes]')).toEqual([{ code: 'x', n: 10 }]);
  });

  it('creates a column with the source collation, so a case-sensitive source key keeps a and A apart', async () => {
    const database = new CollationStagingDouble(server);
    const staging = new SqlServerStaging(database);
    const definition = definitionOf({ name: 'code', sourceType: 'varchar(10)', portableType: Portable.varchar(10), nullable: false, collation: 'Latin1_General_CS_AS' });
    await staging.ensureTable(definition);
    expect(database.collationOf('[dbo].[codes]', 'code')).toBe('Latin1_General_CS_AS');
    await staging.applyBatch(seedOf(definition), csv('a\nA\n'));
    await staging.applyBatch(changesOf(definition, 3), csv('D,a\n'));
    expect(database.rowsOf('[dbo].[codes]')).toEqual([{ code: 'A' }]);
  });

  it('keeps varchar text of another code page (Cyrillic) instead of turning it into ?', async () => {
    const database = new CollationStagingDouble(server);
    const staging = new SqlServerStaging(database);
    const definition = definitionOf(
      { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false },
      { name: 'label', sourceType: 'varchar(20)', portableType: Portable.varchar(20), nullable: true, collation: 'Cyrillic_General_CI_AS' },
    );
    await staging.ensureTable(definition);
    await staging.applyBatch(changesOf(definition), csv('I,1,Привет\n'));
    expect(database.rowsOf('[dbo].[codes]')).toEqual([{ id: 1, label: 'Привет' }]);
  });

  it('adds a column with its source collation to an existing table', async () => {
    const database = new CollationStagingDouble(server);
    const staging = new SqlServerStaging(database);
    const key = { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false };
    await staging.ensureTable(definitionOf(key));
    await staging.ensureTable(definitionOf(key, { name: 'label', sourceType: 'nvarchar(20)', portableType: Portable.varchar(20), nullable: true, collation: 'Latin1_General_100_BIN2' }));
    expect(database.collationOf('[dbo].[codes]', 'label')).toBe('Latin1_General_100_BIN2');
  });

  it('refuses a collation that is not a bare name, before sending any DDL', async () => {
    const database = new CollationStagingDouble(server);
    const definition = definitionOf({ name: 'code', sourceType: 'nvarchar(10)', portableType: Portable.varchar(10), nullable: false, collation: 'Latin1_General_CI_AS NOT NULL, x int' });
    await expect(new SqlServerStaging(database).ensureTable(definition)).rejects.toThrow("column code: collation 'Latin1_General_CI_AS NOT NULL, x int' is not a collation name");
    expect(database.tables.size).toBe(0);
  });
});
