import { Portable, type BatchDescriptor, type TableDefinition } from '@svc/contracts';
import type { WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { RedshiftFileRows, fileRowsLayout } from './redshift-file-rows';
import { MemoryParts, redshiftOnPostgres } from './testing/redshift-on-postgres-warehouse';

/*
 * Validation's key lookups on the Redshift dialect, executed on the Redshift-on-PostgreSQL double (VARBYTE held as the
 * files' lower-case hex, FROM_VARBYTE and TO_VARBYTE as shims: redshift-on-postgres.ts). A binary key travels as its
 * interchange text `\x…`; cast to VARBYTE that text would be its own UTF-8 bytes
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_VARBYTE_type.html), never the key.
 */
let database: TempDatabase;
let warehouse: WarehouseConnector;
const parts = new MemoryParts();
const where: WarehouseTableOptions = { schema: 'rs_checksums', scdType: 'Type1', addUpdateTimestamp: false };

const blobs: TableDefinition = {
  table: { schema: 'public', name: 'blobs' },
  columns: [
    { name: 'id', sourceType: 'bytea', portableType: Portable.binary(), nullable: false },
    { name: 'note', sourceType: 'text', portableType: Portable.text(), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 2,
};

const codes: TableDefinition = {
  table: { schema: 'public', name: 'codes' },
  columns: [
    { name: 'code', sourceType: 'text', portableType: Portable.text(), nullable: false },
    { name: 'note', sourceType: 'text', portableType: Portable.text(), nullable: true },
  ],
  primaryKey: ['code'],
  estimatedRows: 4,
};

/** Seeds `definition` with the rows of one CSV file as the source wrote it. */
async function seed(definition: TableDefinition, csv: string): Promise<void> {
  await warehouse.ensureTable(definition, where);
  const batch: BatchDescriptor = { batchId: `${definition.table.name}:seed:A:0`, replicationId: 'r1', epoch: 1, definition, body: { kind: 'seed', seedId: 'A', part: 0, final: true, startVersion: '1' } };
  const rewriter = new RedshiftFileRows(fileRowsLayout(batch));
  const key = `${definition.table.name}/part`;
  parts.put(key, Buffer.concat([...rewriter.push(Buffer.from(csv)), ...rewriter.end()]));
  await warehouse.loadBatch(batch, { bucket: 'b', manifestKey: `${definition.table.name}/manifest`, partKeys: [key] }, parts, where);
}

beforeAll(async () => {
  database = await createTempDatabase('rs_checksums');
  warehouse = redshiftOnPostgres(database.url);
  // SQL Server writes hex in upper case, PostgreSQL in lower.
  await seed(blobs, '\\x0AFF,upper\n\\x00ff,lower\n');
  await seed(codes, 'john,lower\nJOHN,upper\na,plain\n"a ",blank\n');
});

afterAll(async () => {
  await warehouse.close();
  await database.drop();
});

describe("validation's key lookups on the Redshift dialect (on the PostgreSQL double)", () => {
  it('finds a binary key by its interchange text in either case, and gives it back as `\\x` and lower-case hex', async () => {
    const reader = await warehouse.checksums(blobs, where).openSnapshot();
    try {
      const all = await reader.keyDigestsInSegments({ buckets: 1, subBuckets: 1 }, [0]);
      expect(all.map((row) => row.key).sort()).toEqual([['\\x00ff'], ['\\x0aff']]);
      const byText = await reader.digestsOfKeys(1, [
        { keyHash: '', key: ['\\x0AFF'] },
        { keyHash: '', key: ['\\x00ff'] },
      ]);
      expect(byText.map((row) => [row.key[0], row.digest]).sort()).toEqual(all.map((row) => [row.key[0], row.digest]).sort());
      expect(await reader.digestsOfKeys(1, [{ keyHash: '', key: ['\\x0b'] }])).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  // The double's database is case-insensitive, as a database created COLLATE CASE_INSENSITIVE: "all CHAR or VARCHAR
  // columns use case-insensitive collation" (https://docs.aws.amazon.com/redshift/latest/dg/r_CREATE_DATABASE.html), and
  // "Trailing spaces in VARCHAR and CHAR values are treated as semantically insignificant when values are compared"
  // (https://docs.aws.amazon.com/redshift/latest/dg/r_Character_types.html). The source tells these keys apart.
  it.each([['john'], ['JOHN'], ['a'], ['a ']])('finds the text key %p only, not a key that differs in case or trailing blanks', async (code) => {
    const reader = await warehouse.checksums(codes, where).openSnapshot();
    try {
      expect((await reader.digestsOfKeys(1, [{ keyHash: '', key: [code] }])).map((row) => row.key)).toEqual([[code]]);
    } finally {
      await reader.close();
    }
  });
});
