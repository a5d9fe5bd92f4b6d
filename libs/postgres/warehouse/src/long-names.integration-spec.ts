import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_long_names');
});

afterAll(async () => {
  await fixture.stop();
});

/*
 * PostgreSQL keeps at most NAMEDATALEN-1 = 63 bytes of an identifier: "The system uses no more than NAMEDATALEN-1 bytes
 * of an identifier; longer names can be written in commands, but they will be truncated." (PostgreSQL documentation,
 * 4.1.1 Identifiers and Key Words). SQL Server's column names are up to 128 characters, so a SQL Server source hands
 * the warehouse names that PostgreSQL would cut: two of them sharing their first 63 bytes, and one that an ADD COLUMN
 * would find "already exists" once cut, on every retry.
 */
const prefix = `measurement_${'of_the_quarterly_sensor_reading_'.repeat(3)}`;
const first = `${prefix}in_celsius`;
const second = `${prefix}in_fahrenheit`;
const third = `${prefix}in_kelvin`;
const readings = table('dbo', 'readings', [column('id', 'integer'), column(first, 'text'), column(second, 'text')], ['id']);
const withThird = { ...readings, columns: [...readings.columns, column(third, 'text')] };

describe('source column names longer than PostgreSQL keeps', () => {
  it.each(['Type1', 'Type2'] as const)('%s: each gets a name of its own, kept across ensureTable, and an added one is added once', async (scdType) => {
    expect(Buffer.byteLength(first)).toBeGreaterThan(63);
    const schema = fixture.newSchema();
    const options = fixture.options(schema, scdType);
    expect(await fixture.warehouse.ensureTable(readings, options)).toMatchObject({ created: true, addedColumns: [] });
    await fixture.load(seedBatch(readings, 'S', 0, true), ['1,cold,freezing\n'], options);
    expect(await fixture.warehouse.ensureTable(readings, options)).toMatchObject({ created: false, addedColumns: [] });

    expect(await fixture.warehouse.ensureTable(withThird, options)).toMatchObject({ created: false, addedColumns: [third] });
    expect(await fixture.warehouse.ensureTable(withThird, options)).toMatchObject({ created: false, addedColumns: [] });
    await fixture.load(changeBatch(withThird, 10, 20), ['U,1,warm,mild,pleasant\nI,2,hot,,\n'], options);

    const columns = await fixture.rows<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'readings' AND column_name NOT LIKE 'svc_sys_%' ORDER BY ordinal_position`,
      [schema],
    );
    expect(columns).toHaveLength(4);
    expect(new Set(columns.map((entry) => entry.name)).size).toBe(4);
    const [, c1, c2, c3] = columns.map((entry) => entry.name);
    const current = scdType === 'Type2' ? 'WHERE svc_sys_is_current' : '';
    expect(await fixture.rows(`SELECT id, "${c1}" AS a, "${c2}" AS b, "${c3}" AS c FROM ${schema}.readings ${current} ORDER BY id`)).toEqual([
      { id: 1, a: 'warm', b: 'mild', c: 'pleasant' },
      { id: 2, a: 'hot', b: null, c: null },
    ]);
  });
});
