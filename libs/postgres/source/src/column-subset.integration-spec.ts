import type { TableDefinition } from '@svc/contracts';
import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { StaleDefinitionError } from '@svc/engines';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';
import { connect, parseCsv, readAll, sortedRows } from './testing/source-fixture';
import { portableTypeOfPostgres } from '@svc/postgres/common';

const PROJECTED = { columnsProjected: true };

/** A replication with SchemaReplication off reads a definition narrowed to the columns staging has. */
describe('PostgreSQL source: reads of a definition with fewer columns than the table', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let db: Client;
  let narrowed: TableDefinition;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_subset');
    db = await connect(database.url);
    await db.query(`
      create table people (region text, id integer, name text, primary key (region, id));
      insert into people values ('eu', 1, 'Ann'), ('us', 2, 'Bob');
      alter table people add column nickname text;
      update people set nickname = 'Annie' where id = 1;
    `);
    source = createPostgresSource(database.url, { encrypt: false });
    const full = (await source.describeTable({ schema: 'public', name: 'people' }))!;
    expect(full.columns.map((column) => column.name)).toEqual(['region', 'id', 'name', 'nickname']);
    narrowed = { ...full, columns: full.columns.filter((column) => column.name !== 'nickname') };
  });

  afterAll(async () => {
    await db.end();
    await source.close();
    await database.drop();
  });

  it('seeds only the columns of the definition', async () => {
    await source.enableTracking(narrowed);
    const snapshot = await readAll(await source.readSnapshot(narrowed, PROJECTED));
    expect(sortedRows(parseCsv(snapshot.csv))).toEqual([
      ['eu', '1', 'Ann'],
      ['us', '2', 'Bob'],
    ]);
  });

  it('refuses a narrowed definition that does not say it is one: the missing column reads as an ALTER TABLE it missed', async () => {
    await expect(source.readSnapshot(narrowed)).rejects.toThrow(StaleDefinitionError);
    await expect(source.readChanges(narrowed, (await source.minValidVersion(narrowed.table))!, 10)).rejects.toThrow(/nickname were added/);
  });

  it('refuses a definition naming a column the table no longer has, projected or not', async () => {
    const withGhost = { ...narrowed, columns: [...narrowed.columns, { name: 'ghost', sourceType: 'text', portableType: portableTypeOfPostgres('text'), nullable: true }] };
    await expect(source.readSnapshot(withGhost, PROJECTED)).rejects.toThrow(/ghost no longer exist/);
  });

  it('reads changes with only the columns of the definition', async () => {
    const feed = new ChangeFeed(source, narrowed, (await source.minValidVersion(narrowed.table))!, PROJECTED);
    const xid = await commitAndGetXid(db, "insert into people values ('eu', 3, 'Cy', 'C'); update people set nickname = 'B', name = 'Bobby' where id = 2; delete from people where id = 1");
    expect((await feed.readThrough(xid)).rows).toEqual([
      ['D', 'eu', '1', null],
      ['I', 'eu', '3', 'Cy'],
      ['U', 'us', '2', 'Bobby'],
    ]);
  });
});
