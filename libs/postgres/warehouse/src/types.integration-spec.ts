import type { TableDefinition } from '@svc/contracts';
import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_types');
  await fixture.sql.query(`
CREATE SCHEMA src;
CREATE TYPE src.mood AS ENUM ('sad', 'ok', 'happy 😀');
CREATE TABLE src.all_types (
  id uuid PRIMARY KEY,
  label text,
  amount numeric(38,10),
  happened timestamptz,
  payload bytea,
  document jsonb,
  numbers integer[],
  words text[],
  mood src.mood,
  big text,
  empty text
);
INSERT INTO src.all_types VALUES
  ('6f1c7a7e-3b0e-4f6a-9d55-2b8f4a1e9c01', E'emoji 😀🎉 "quoted", comma\\nnew line', 1234567890123456789012345678.0123456789,
   '2024-02-29 23:59:59.123456+05:30', '\\x00ff10275c', '{"a": [1, "😀"], "b": null, "c": {"d": "e,f"}}',
   '{1,NULL,3}', ARRAY['a,b', 'c"d', NULL, '', '😀'], 'happy 😀', repeat('x', 1048576), ''),
  ('6f1c7a7e-3b0e-4f6a-9d55-2b8f4a1e9c02', NULL, -0.0000000001, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
`);
});

afterAll(async () => {
  await fixture.stop();
});

const allTypes: TableDefinition = table(
  'src',
  'all_types',
  [
    column('id', 'uuid'),
    column('label', 'text'),
    column('amount', 'numeric(38,10)'),
    column('happened', 'timestamp with time zone'),
    column('payload', 'bytea'),
    column('document', 'jsonb'),
    column('numbers', 'integer[]'),
    column('words', 'text[]'),
    column('mood', 'text', 'src.mood'),
    column('big', 'text'),
    column('empty', 'text'),
  ],
  ['id'],
);
const COLUMNS = allTypes.columns.map((definition) => definition.name).join(', ');

describe('every type of the acceptance list round-trips', () => {
  it('Type1 seed: the warehouse writes back exactly the CSV it was given', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(allTypes, options);
    const source = await fixture.csv(`SELECT ${COLUMNS} FROM src.all_types ORDER BY id`);
    expect(source.length).toBeGreaterThan(1048576);

    expect(await fixture.load(seedBatch(allTypes, 'A', 0, true), [source], options)).toEqual({ applied: true, rowCount: 2 });
    expect(await fixture.csv(`SELECT ${COLUMNS} FROM ${schema}.src_all_types ORDER BY id`)).toBe(source);
    const [typed] = await fixture.rows<{ mood: string; emoji: boolean }>(
      `SELECT mood, label LIKE '%😀🎉%' AS emoji FROM ${schema}.src_all_types WHERE label IS NOT NULL`,
    );
    expect(typed).toEqual({ mood: 'happy 😀', emoji: true });
  });

  it('Type2 changes: inserted rows come back exactly as the source wrote them', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type2', true);
    await fixture.warehouse.ensureTable(allTypes, options);
    const changes = await fixture.csv(`SELECT 'I', ${COLUMNS} FROM src.all_types ORDER BY id`);

    expect(await fixture.load(changeBatch(allTypes, 1, 2), [changes], options)).toEqual({ applied: true, rowCount: 2 });
    const source = await fixture.csv(`SELECT ${COLUMNS} FROM src.all_types ORDER BY id`);
    expect(await fixture.csv(`SELECT ${COLUMNS} FROM ${schema}.src_all_types WHERE svc_sys_is_current ORDER BY id`)).toBe(source);

    // The same values again are no change: no new version, even for jsonb, arrays and 1 MB of text.
    const again = await fixture.csv(`SELECT 'U', ${COLUMNS} FROM src.all_types ORDER BY id`);
    await fixture.load(changeBatch(allTypes, 2, 3), [again], options);
    expect(await fixture.count(`${schema}.src_all_types`)).toBe(2);
  });
});
