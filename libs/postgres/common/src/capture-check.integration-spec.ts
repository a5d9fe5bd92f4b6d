import { randomBytes } from 'node:crypto';
import { createLogicalTempDatabase, createTempDatabase, walLevelOf, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { postgresAccess } from './postgres-access';

/*
 * Create's check of a PostgreSQL source's capture (issue 38): from the log where wal_level is logical and the login may
 * use a slot and owns the tables; by triggers otherwise, with a Note that says why and how to move to the log; refused,
 * with the fix, for a login that can do neither (one with SELECT only used to get 200 Running and a table in Error).
 */
describe('PostgreSQL source: what Create says about capturing changes', () => {
  const databases: TempDatabase[] = [];
  const roles: string[] = [];
  const options = { encrypt: false, timeoutMs: 10_000 };
  const orders = [{ schema: 'public', name: 'orders' }];

  afterAll(async () => {
    for (const database of databases) await database.drop();
    const admin = new Client({ connectionString: process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    for (const role of roles) await admin.query(`drop role if exists ${role}`);
    await admin.end();
  });

  async function sourceWith(database: TempDatabase, grants: (role: string) => string[]): Promise<string> {
    const role = `svc_capture_${randomBytes(4).toString('hex')}`;
    roles.push(role);
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query('create table if not exists orders (id integer primary key, v text)');
      await admin.query(`create role ${role} login`);
      for (const grant of grants(role)) await admin.query(grant);
    } finally {
      await admin.end();
    }
    const url = new URL(database.url);
    url.username = role;
    return url.toString();
  }

  it('refuses a login that may only read the tables, naming them and the grants that fix it', async () => {
    const database = await createTempDatabase('svc_capture_select');
    databases.push(database);
    const reader = await sourceWith(database, (role) => [`grant select on orders to ${role}`]);
    const check = await postgresAccess.checkCapture!(reader, options, orders);
    expect(check.note).toBe('');
    expect(check.problems).toHaveLength(2);
    expect(check.problems[0]).toMatch(/^the login svc_capture_\w+ can capture the changes of \[public\]\.\[orders\] neither from the log nor by triggers: make it their owner \(or GRANT TRIGGER on them\)/);
    expect(check.problems[1]).toMatch(/may not create the schema svc_ct that capture needs: GRANT CREATE ON DATABASE/);
  });

  it('captures by triggers where logical decoding is off, and says what would move it to the log', async () => {
    const database = await createTempDatabase('svc_capture_triggers');
    databases.push(database);
    const level = await walLevelOf(database.url);
    const owner = await sourceWith(database, (role) => [`alter table orders owner to ${role}`, `grant create on database "${database.name}" to ${role}`]);
    const check = await postgresAccess.checkCapture!(owner, options, orders);
    expect(check.problems).toEqual([]);
    if (level === 'logical') expect(check.note).toMatch(/because logical decoding is not available.*ALTER ROLE svc_capture_\w+ WITH REPLICATION/);
    else expect(check.note).toMatch(new RegExp(`^Changes are captured by triggers .*set wal_level = logical and restart the server \\(it is ${level};.*ALTER ROLE svc_capture_\\w+ WITH REPLICATION`));
  });

  it('reads from the log where the server and the login allow it, names the slot, and the tables whose replica identity keeps them on triggers', async () => {
    const database = await createLogicalTempDatabase('svc_capture_log');
    databases.push(database);
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    await admin.query('create table orders (id integer primary key); create table loose (id integer primary key); alter table loose replica identity nothing');
    await admin.end();
    const check = await postgresAccess.checkCapture!(database.url, options, orders);
    expect(check).toEqual({ problems: [], note: expect.stringMatching(/^Changes are read from the write-ahead log through replication slot svc_ct_\d+ and publication svc_ct\./) as unknown });
    const mixed = await postgresAccess.checkCapture!(database.url, options, [...orders, { schema: 'public', name: 'loose' }]);
    expect(mixed.note).toMatch(/ The changes of \[public\]\.\[loose\] are captured by triggers instead: a replica identity of NOTHING/);
  });
});
