import { PrivatePostgres, type PrivateCluster } from '@svc/testing';
import { Client } from 'pg';
import type { SourceConnector } from '@svc/engines';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';

/*
 * The relay streams the slot through a walsender (PostgreSQL's "Streaming Replication Protocol"); a server refuses a
 * replication connection past max_wal_senders with SQLSTATE 53300 ("number of requested standby connections exceeds
 * max_wal_senders"). A private cluster with one walsender place, taken by another client, shows what a read then says.
 */
describe('PostgreSQL source: log capture when every walsender place is taken', () => {
  const servers = PrivatePostgres.create('svc-pg-walsenders-');
  let cluster: PrivateCluster;
  let source: SourceConnector;
  let writer: Client;
  let occupant: Client | undefined;

  beforeAll(async () => {
    cluster = await servers.initdb('one-walsender');
    servers.configure(cluster, { wal_level: 'logical', max_wal_senders: '1', max_replication_slots: '4' });
    await servers.start(cluster);
    writer = new Client({ connectionString: cluster.url() });
    await writer.connect();
    await writer.query('create table orders (id integer primary key)');
    source = createPostgresSource(cluster.url(), { encrypt: false, relayIntervalMs: 0 });
  }, 60000);

  afterAll(async () => {
    await source?.close();
    await Promise.allSettled([writer?.end(), occupant?.end()]);
    occupant = undefined;
    await servers.remove();
  });

  it('fails the read with the server’s refusal and what to do, and relays once a place is free', async () => {
    const definition = (await source.describeTable({ schema: 'public', name: 'orders' }))!;
    await source.enableTracking(definition);
    const from = (await source.minValidVersion(definition.table))!;
    await source.close();
    // Another client takes the only walsender place.
    occupant = new Client({ connectionString: cluster.url(), replication: 'database' } as ConstructorParameters<typeof Client>[0]);
    await occupant.connect();
    source = createPostgresSource(cluster.url(), { encrypt: false, relayIntervalMs: 0 });
    const xid = await commitAndGetXid(writer, 'insert into orders values (1)');
    await expect(source.readChanges(definition, from, 1000)).rejects.toThrow(/stream of replication slot svc_ct_\d+ failed: .*max_wal_senders.*\(raise max_wal_senders/);
    await occupant.end();
    occupant = undefined;
    expect((await new ChangeFeed(source, definition, from).readThrough(xid)).rows).toEqual([['I', '1']]);
  });
});
