import type { TableDefinition } from '@svc/contracts';
import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { createPostgresSource } from './postgres-source';
import { withClient } from './testing/source-fixture';
import { portableTypeOfPostgres, postgresColumnType } from '@svc/postgres/common';

describe('PostgreSQL source: discovery', () => {
  let database: TempDatabase;
  let source: SourceConnector;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_disc');
    await withClient(database.url, (client) =>
      client.query(`
        create type mood as enum ('sad', 'ok', 'happy');
        create domain positive_int as integer check (value > 0);
        create domain mood_of_day as mood;
        create domain price as numeric(12,2);
        create domain list_price as price;
        create schema "Sales";
        create type "Sales".pair as (a integer, b text);
        create table "Sales"."Order Lines" (
          order_id bigint,
          line smallint,
          mood mood,
          moods mood[],
          daily mood_of_day,
          quantity positive_int not null,
          quantities positive_int[],
          amount list_price,
          pair "Sales".pair,
          amounts numeric(38,10)[],
          at timestamptz,
          primary key (line, order_id)
        );
        create table events (payload jsonb, noted_at timestamp(3));
        create table filled (
          plain text,
          constant text default 'open',
          serial_id serial,
          identity_id integer generated always as identity,
          doubled integer generated always as (serial_id * 2) stored
        );
        create table parted (id integer primary key, v text) partition by range (id);
        create table parted_low partition of parted for values from (0) to (100);
        insert into events select jsonb_build_object('n', g), now() from generate_series(1, 500) g;
        analyze events;
      `),
    );
    source = createPostgresSource(database.url, { encrypt: false });
  });

  afterAll(async () => {
    await source.close();
    await database.drop();
  });

  const byKey = (tables: TableDefinition[]) => new Map(tables.map((table) => [`${table.table.schema}.${table.table.name}`, table]));

  it('lists user tables, leaving out partitions and the change-tracking schema', async () => {
    await source.enableTracking((await source.describeTable({ schema: 'public', name: 'parted' }))!);
    const tables = byKey(await source.discoverTables());
    expect([...tables.keys()].sort()).toEqual(['Sales.Order Lines', 'public.events', 'public.filled', 'public.parted']);
  });

  it('describes columns with source and portable types, nullability and key order', async () => {
    const lines = await source.describeTable({ schema: 'Sales', name: 'Order Lines' });
    expect(lines?.primaryKey).toEqual(['line', 'order_id']);
    expect(lines?.columns.map((column) => [column.name, column.sourceType, postgresColumnType(column.portableType).type, column.nullable])).toEqual([
      ['order_id', 'bigint', 'bigint', false],
      ['line', 'smallint', 'smallint', false],
      // Source sessions search pg_catalog alone (SOURCE_SESSION_OPTIONS): format_type names user-defined types with their schema.
      ['mood', 'public.mood', 'text', true],
      ['moods', 'public.mood[]', 'text[]', true],
      ['daily', 'public.mood_of_day', 'text', true],
      ['quantity', 'public.positive_int', 'integer', false],
      ['quantities', 'public.positive_int[]', 'integer[]', true],
      ['amount', 'public.list_price', 'numeric(12,2)', true],
      ['pair', '"Sales".pair', 'text', true],
      ['amounts', 'numeric(38,10)[]', 'numeric(38,10)[]', true],
      ['at', 'timestamp with time zone', 'timestamp with time zone', true],
    ]);
  });

  it('reports a table without a primary key with an empty key and its row estimate', async () => {
    const events = await source.describeTable({ schema: 'public', name: 'events' });
    expect(events).toEqual({
      table: { schema: 'public', name: 'events' },
      columns: [
        { name: 'payload', sourceType: 'jsonb', portableType: portableTypeOfPostgres('jsonb'), nullable: true },
        { name: 'noted_at', sourceType: 'timestamp(3) without time zone', portableType: portableTypeOfPostgres('timestamp(3) without time zone'), nullable: true },
      ],
      primaryKey: [],
      estimatedRows: 500,
    });
  });

  it('estimates 0 rows for a table never analysed', async () => {
    expect((await source.describeTable({ schema: 'public', name: 'parted' }))?.estimatedRows).toBe(0);
  });

  it('returns null for a table that does not exist', async () => {
    expect(await source.describeTable({ schema: 'public', name: 'nope' })).toBeNull();
    expect(await source.describeTable({ schema: 'svc_ct', name: 'tracked_tables' })).toBeNull();
  });

  it('marks columns whose existing rows get a value from the source when they are added (defaults, identity, generated)', async () => {
    const filled = await source.describeTable({ schema: 'public', name: 'filled' });
    expect(filled?.columns.map((column) => [column.name, column.hasDefault ?? false])).toEqual([
      ['plain', false],
      ['constant', true],
      ['serial_id', true],
      ['identity_id', true],
      ['doubled', true],
    ]);
    // Absent, not false, when the column has none: definitions of such tables stay as they were.
    expect(filled?.columns[0]).not.toHaveProperty('hasDefault');
  });
});
