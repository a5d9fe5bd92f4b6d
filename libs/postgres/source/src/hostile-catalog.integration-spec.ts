import type { TableDefinition } from '@svc/contracts';
import type { SourceConnector, StagingConnector, WarehouseConnector } from '@svc/engines';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';
import { postgresColumnType } from '@svc/postgres/common';
import { createPostgresStaging } from '@svc/postgres/staging';
import { createPostgresWarehouse, targetTableName } from '@svc/postgres/warehouse';
import { TEST_POSTGRES_SERVER_URL, TEST_POSTGRES_URL, createTempDatabase, type TempDatabase } from '@svc/testing';
import { createPostgresSource } from './postgres-source';
import { withClient } from './testing/source-fixture';

/*
 * A source database whose catalog answers with DDL: the text must reach neither the table definition (beyond the
 * source's own type names) nor the staging and warehouse tables made from it.
 */

const HOSTILE_TYPE_TEXT = 'integer default pg_sleep(86400)';
/** Shaped as a PostgreSQL type with one modifier, as the contract's grammar of native types allows. */
const HOSTILE_SERVER_TYPE_TEXT = 'boolean default pg_terminate_backend(1)';

interface DeclaredColumn {
  name: string;
  type: string;
  has_default: boolean;
}

/** The columns of `schema.name` as the staging or warehouse catalog has them: type, and whether anything gives a default. */
async function declaredColumns(url: string, schema: string, name: string): Promise<DeclaredColumn[]> {
  return withClient(url, async (client) => {
    const result = await client.query<DeclaredColumn>(
      `select a.attname::text as name, pg_catalog.format_type(a.atttypid, a.atttypmod) as type,
         a.atthasdef or a.attidentity <> '' or a.attgenerated <> '' as has_default
       from pg_catalog.pg_attribute a
       where a.attrelid = pg_catalog.to_regclass($1) and a.attnum > 0 and not a.attisdropped
       order by a.attnum`,
      [`"${schema}"."${name}"`],
    );
    return result.rows;
  });
}

function urlAs(url: string, user: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = '';
  return parsed.toString();
}

describe('PostgreSQL source: a hostile catalog writes no staging or warehouse DDL', () => {
  let staging: TempDatabase;
  let warehouseDatabase: TempDatabase;
  let stagingConnector: StagingConnector;
  let warehouse: WarehouseConnector;

  beforeAll(async () => {
    staging = await createTempDatabase('svc_hostile_stg');
    warehouseDatabase = await createTempDatabase('svc_hostile_wh');
    stagingConnector = createPostgresStaging(staging.url, { encrypt: false });
    const server = new URL(TEST_POSTGRES_URL);
    warehouse = createPostgresWarehouse(
      { url: TEST_POSTGRES_SERVER_URL, databaseName: warehouseDatabase.name, username: decodeURIComponent(server.username) || 'postgres', password: decodeURIComponent(server.password) },
      { statementTimeoutMs: 30_000, bareNameSchemas: TEST_BARE_NAME_SCHEMAS },
    );
  });

  afterAll(async () => {
    await stagingConnector.close();
    await warehouse.close();
    await staging.drop();
    await warehouseDatabase.drop();
  });

  /** Creates the staging and warehouse tables of `definition` (warehouse schema `schema`) and reads back their columns. */
  async function replicatedColumns(definition: TableDefinition, schema: string): Promise<{ staging: DeclaredColumn[]; warehouse: DeclaredColumn[] }> {
    await stagingConnector.ensureTable(definition);
    await warehouse.ensureTable(definition, { schema, scdType: 'Type1', addUpdateTimestamp: false });
    return {
      staging: await declaredColumns(staging.url, definition.table.schema, definition.table.name),
      warehouse: await declaredColumns(warehouseDatabase.url, schema, targetTableName(definition.table, TEST_BARE_NAME_SCHEMAS)),
    };
  }

  describe('a source role whose own search_path puts its format_type and || before pg_catalog', () => {
    let database: TempDatabase;
    let source: SourceConnector;
    let role = '';

    beforeAll(async () => {
      database = await createTempDatabase('svc_hostile_path');
      role = `svc_hostile_${database.name.slice(-10)}`;
      await withClient(database.url, (client) =>
        client.query(`
          create role "${role}" login;
          create schema evil authorization "${role}";
          create function evil.format_type(oid, integer) returns text language sql stable as $$ select '${HOSTILE_TYPE_TEXT}'::text $$;
          create function evil.concat_text(text, text) returns text language sql immutable as $$ select '${HOSTILE_TYPE_TEXT}'::text $$;
          create operator evil.|| (leftarg = text, rightarg = text, function = evil.concat_text);
          alter role "${role}" in database "${database.name}" set search_path = evil, pg_catalog, public;
          create type public."${HOSTILE_TYPE_TEXT}" as enum ('a', 'b');
          create domain public."inet); drop table orders; --" as integer;
          create table public.orders (
            id integer primary key,
            amount numeric(12,2),
            address inet,
            addresses inet[],
            mood public."${HOSTILE_TYPE_TEXT}",
            quantity public."inet); drop table orders; --"
          );
          grant select on public.orders to "${role}";
        `),
      );
      // The role's search_path is in force in its own sessions: its format_type and || answer there.
      await withClient(urlAs(database.url, role), async (client) => {
        const hijacked = await client.query<{ type: string; array: string }>("select format_type('integer'::regtype, -1) as type, 'inet' || '[]' as array");
        expect(hijacked.rows).toEqual([{ type: HOSTILE_TYPE_TEXT, array: HOSTILE_TYPE_TEXT }]);
      });
      source = createPostgresSource(urlAs(database.url, role), { encrypt: false });
    });

    afterAll(async () => {
      await source.close();
      await database.drop();
      await withClient(TEST_POSTGRES_URL, (client) => client.query(`drop role if exists "${role}"`));
    });

    it('describes the table with the catalog\'s own types: the role\'s functions and operators are not called', async () => {
      const definition = await source.describeTable({ schema: 'public', name: 'orders' });
      expect(definition?.columns.map((column) => [column.name, column.sourceType, postgresColumnType(column.portableType).type])).toEqual([
        ['id', 'integer', 'integer'],
        ['amount', 'numeric(12,2)', 'numeric(12,2)'],
        ['address', 'inet', 'inet'],
        ['addresses', 'inet[]', 'inet[]'],
        // A user-defined type is named as format_type quotes it, schema-qualified: a name, not DDL.
        ['mood', `public."${HOSTILE_TYPE_TEXT}"`, 'text'],
        ['quantity', 'public."inet); drop table orders; --"', 'integer'],
      ]);
      expect(definition?.primaryKey).toEqual(['id']);
    });

    it('creates staging and warehouse tables of built-in types, without defaults', async () => {
      const definition = (await source.describeTable({ schema: 'public', name: 'orders' }))!;
      const wanted = [
        { name: 'id', type: 'integer', has_default: false },
        { name: 'amount', type: 'numeric(12,2)', has_default: false },
        { name: 'address', type: 'inet', has_default: false },
        { name: 'addresses', type: 'inet[]', has_default: false },
        { name: 'mood', type: 'text', has_default: false },
        { name: 'quantity', type: 'integer', has_default: false },
      ];
      expect(await replicatedColumns(definition, 'wh_path')).toEqual({ staging: wanted, warehouse: wanted });
    });
  });

  describe('a server whose pg_catalog.format_type answers DDL', () => {
    let database: TempDatabase;
    let source: SourceConnector;

    beforeAll(async () => {
      database = await createTempDatabase('svc_hostile_server');
      // As a superuser may, in this database only: what a server that answers as it likes would send.
      await withClient(database.url, (client) =>
        client.query(`
          create schema hostile;
          create table hostile.orders (id integer primary key, address inet, amount numeric(12,2));
          create or replace function pg_catalog.format_type(oid, integer) returns text language sql stable as $$ select '${HOSTILE_SERVER_TYPE_TEXT}'::text $$;
        `),
      );
      source = createPostgresSource(database.url, { encrypt: false });
    });

    afterAll(async () => {
      await source.close();
      await database.drop();
    });

    it('takes no type text that is no built-in type: each column travels as text', async () => {
      const definition = await source.describeTable({ schema: 'hostile', name: 'orders' });
      // sourceType is the source's word for its own type: only the source itself reads it again.
      expect(definition?.columns.map((column) => [column.name, column.sourceType, column.portableType])).toEqual([
        ['id', HOSTILE_SERVER_TYPE_TEXT, { kind: 'text', length: null, unit: 'characters', fixed: false }],
        ['address', HOSTILE_SERVER_TYPE_TEXT, { kind: 'text', length: null, unit: 'characters', fixed: false }],
        ['amount', HOSTILE_SERVER_TYPE_TEXT, { kind: 'text', length: null, unit: 'characters', fixed: false }],
      ]);
    });

    it('creates staging and warehouse tables of text columns, without defaults', async () => {
      const definition = (await source.describeTable({ schema: 'hostile', name: 'orders' }))!;
      const wanted = ['id', 'address', 'amount'].map((name) => ({ name, type: 'text', has_default: false }));
      expect(await replicatedColumns(definition, 'wh_server')).toEqual({ staging: wanted, warehouse: wanted });
    });
  });
});
