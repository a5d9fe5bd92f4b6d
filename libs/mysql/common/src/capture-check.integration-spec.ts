import type { RetentionPeriod } from '@svc/contracts';
import { PrivateMariaDb } from '@svc/testing';
import { mysqlAccess } from './mysql-access';

/**
 * Create's check of a MySQL-family source against a live server (a private MariaDB): a login without the replication
 * privileges is refused with the GRANTs that fix it, one with them passes, and a binary log kept shorter than the
 * replication's retention is raised where the login may (and said so) and refused, with the statement, where it may not.
 */
describe('MySQL source: what Create says about reading the binary log (a private MariaDB)', () => {
  let server: PrivateMariaDb;
  const options = { encrypt: false, timeoutMs: 10_000, dial: { allowLoopback: true } };
  const orders = [{ schema: 'shop', name: 'orders' }];
  const check = (url: string, retention?: RetentionPeriod) => {
    const checkCapture = mysqlAccess.checkCapture;
    if (checkCapture === undefined) throw new Error('the MySQL engine checks capture');
    return checkCapture(url, options, orders, retention);
  };

  beforeAll(async () => {
    server = await PrivateMariaDb.start();
    await server.execute(
      [
        'CREATE DATABASE shop',
        'CREATE TABLE shop.orders (id INT PRIMARY KEY, note TEXT)',
        "CREATE USER 'reader'@'%' IDENTIFIED BY 'reader-secret'",
        "GRANT SELECT ON shop.* TO 'reader'@'%'",
        "CREATE USER 'replicator'@'%' IDENTIFIED BY 'replicator-secret'",
        "GRANT SELECT, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'replicator'@'%'",
      ].join(';\n'),
    );
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('refuses a login that may only SELECT, naming each GRANT it lacks and never its password', async () => {
    const result = await check(server.url('shop', 'reader', 'reader-secret'));
    expect(result.problems).toEqual([expect.stringContaining('GRANT REPLICATION SLAVE ON *.*'), expect.stringContaining('GRANT REPLICATION CLIENT ON *.*')]);
    expect(JSON.stringify(result)).not.toContain('reader-secret');
  }, 30_000);

  it('passes a login with replication and SELECT, saying the changes come from the binary log', async () => {
    const result = await check(server.url('shop', 'replicator', 'replicator-secret'));
    expect(result.problems).toEqual([]);
    expect(result.note).toContain('binary log');
  }, 30_000);

  it('raises a binary log expiry shorter than the retention where the login may, and refuses it with the fix where it may not', async () => {
    await server.execute('SET GLOBAL binlog_expire_logs_seconds = 3600');
    const refused = await check(server.url('shop', 'replicator', 'replicator-secret'), '2 Days');
    expect(refused.problems).toEqual([expect.stringContaining('SET GLOBAL binlog_expire_logs_seconds = 172800')]);

    const raised = await check(server.url('shop'), '2 Days');
    expect(raised.problems).toEqual([]);
    expect(raised.note).toContain('binlog_expire_logs_seconds was raised to 172800');
    const connection = await server.connect();
    try {
      const [rows] = await connection.query('SELECT @@global.binlog_expire_logs_seconds AS seconds');
      expect(rows).toEqual([{ seconds: 172800 }]);
    } finally {
      await connection.end();
    }
  }, 30_000);
});
