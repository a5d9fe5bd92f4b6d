import { postgresAccess } from '@svc/postgres/common';
import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { createPostgresSource } from './postgres-source';
import { withClient } from './testing/source-fixture';

/**
 * The registry lists a source's tables at Create (to refuse tables that would share a warehouse table)
 * with the engine's access (postgresAccess.listTables, where @svc/connectors' listSourceTables dispatches a
 * postgres:// string); the extractor discovers them with the catalog query here. Both must find the same tables
 * with the same keys.
 */
describe('source table listing (connectors) agrees with discovery', () => {
  let database: TempDatabase;
  let source: SourceConnector;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_listing');
    await withClient(database.url, (client) =>
      client.query(`
        create schema sales;
        create table public.sales_orders (id integer primary key);
        create table sales.orders (region text, id integer, primary key (region, id));
        create table public.log (line text);
        create table public.events (at date not null, id integer, primary key (at, id)) partition by range (at);
        create table public.events_2026 partition of public.events for values from ('2026-01-01') to ('2027-01-01');
        create view public.recent as select * from public.log;
        create schema svc_ct;
        create table svc_ct.tracked_tables (schema text, name text);
      `),
    );
    source = createPostgresSource(database.url, { encrypt: false });
  });

  afterAll(async () => {
    await source.close();
    await database.drop();
  });

  it('lists user tables with their key columns: not partitions, views or the change-tracking schema', async () => {
    const listed = await postgresAccess.listTables(database.url, { encrypt: false, timeoutMs: 5000 });
    expect(listed.map(({ table, primaryKey }) => ({ table, primaryKey }))).toEqual([
      { table: { schema: 'public', name: 'events' }, primaryKey: ['at', 'id'] },
      { table: { schema: 'public', name: 'log' }, primaryKey: [] },
      { table: { schema: 'public', name: 'sales_orders' }, primaryKey: ['id'] },
      { table: { schema: 'sales', name: 'orders' }, primaryKey: ['region', 'id'] },
    ]);
    const discovered = await source.discoverTables();
    expect(discovered.map(({ table, primaryKey }) => ({ table, primaryKey }))).toEqual(listed.map(({ table, primaryKey }) => ({ table, primaryKey })));
  });

  it('fails, without the password in the message, when the source cannot be reached', async () => {
    const failure = await postgresAccess.listTables('postgres://postgres:Sup3r-Secret@127.0.0.1:1/db', { encrypt: false, timeoutMs: 2000 }).catch((error: unknown) => error);
    // The driver's error comes from another realm under jest: check its message, not its class.
    expect((failure as { message?: unknown }).message).toEqual(expect.stringContaining('ECONNREFUSED'));
    expect(String((failure as { message?: unknown }).message)).not.toContain('Sup3r-Secret');
  });
});
