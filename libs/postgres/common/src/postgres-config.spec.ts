import type { ClientConfig } from 'pg';
import { ConnectionStringError, UnsafeHostError } from '@svc/engines';
import { postgresClientConfig, warehouseClientConfig } from './postgres-config';

async function passwordOf(config: ClientConfig): Promise<string | undefined> {
  return typeof config.password === 'function' ? config.password() : config.password;
}

describe('postgresClientConfig', () => {
  const plain = { encrypt: false, connectTimeoutMs: 5000 };

  it('takes host, port, user, password and database from the URL, percent-decoded', async () => {
    const config = postgresClientConfig('postgres://app%40corp:p%40ss%3Bword@db.example.com:6543/sales%20db', plain);
    expect(config).toMatchObject({ host: 'db.example.com', port: 6543, user: 'app@corp', database: 'sales db', ssl: false, connectionTimeoutMillis: 5000 });
    expect(await passwordOf(config)).toBe('p@ss;word');
  });

  it('keeps the password out of enumerable properties and JSON', () => {
    const config = postgresClientConfig('postgres://u:s3cret-value@db/sales', plain);
    expect(JSON.stringify(config)).not.toContain('s3cret-value');
  });

  it('never falls back to the service environment for the password', async () => {
    const saved = process.env['PGPASSWORD'];
    process.env['PGPASSWORD'] = 'service-secret';
    try {
      expect(await passwordOf(postgresClientConfig('postgres://u@db/sales', plain))).toBe('');
    } finally {
      if (saved === undefined) delete process.env['PGPASSWORD'];
      else process.env['PGPASSWORD'] = saved;
    }
  });

  it('defaults the port to 5432, the host to localhost and the database to the user', () => {
    const config = postgresClientConfig('postgresql:///', plain);
    expect(config).toMatchObject({ host: 'localhost', port: 5432 });
    expect(config.database).toBe(config.user);
    expect(postgresClientConfig('postgresql://reader@db', plain).database).toBe('reader');
  });

  it('verifies the certificate over TLS 1.2+ when encryption is requested', () => {
    expect(postgresClientConfig('postgres://u@db/sales', { encrypt: true, connectTimeoutMs: 1 }).ssl).toEqual({
      minVersion: 'TLSv1.2',
      rejectUnauthorized: true,
    });
  });

  it.each([
    ['sslmode=require', false, { minVersion: 'TLSv1.2', rejectUnauthorized: false }],
    ['sslmode=require', true, { minVersion: 'TLSv1.2', rejectUnauthorized: false }],
    ['sslmode=verify-full', false, { minVersion: 'TLSv1.2', rejectUnauthorized: true }],
    ['ssl=true', false, { minVersion: 'TLSv1.2', rejectUnauthorized: true }],
    ['sslmode=disable', false, false],
    ['sslmode=prefer', false, false],
    ['sslmode=disable', true, { minVersion: 'TLSv1.2', rejectUnauthorized: true }],
  ])('%s with encrypt=%s', (query, encrypt, ssl) => {
    expect(postgresClientConfig(`postgres://u@db/sales?${query}`, { encrypt, connectTimeoutMs: 1 }).ssl).toEqual(ssl);
  });

  it('verify-ca checks the chain but not the host name', () => {
    const ssl = postgresClientConfig('postgres://u@db/sales?sslmode=verify-ca', plain).ssl;
    expect(ssl).toMatchObject({ rejectUnauthorized: true });
    expect(typeof ssl === 'object' && ssl.checkServerIdentity?.('other-host', { subject: {} } as never)).toBeUndefined();
  });

  it('rejects other strings without quoting them', () => {
    expect(() => postgresClientConfig('Server=host;Password=hunter2', plain)).toThrow(ConnectionStringError);
    expect(() => postgresClientConfig('Server=host;Password=hunter2', plain)).not.toThrow(/hunter2/);
  });
});

describe('warehouseClientConfig', () => {
  const warehouse = { databaseName: 'dw', username: 'loader', password: 'pw' };

  it('connects to a bare host:port Redshift endpoint over verified TLS', async () => {
    const config = warehouseClientConfig({ ...warehouse, url: 'examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439' }, 10000);
    expect(config).toMatchObject({
      host: 'examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com',
      port: 5439,
      user: 'loader',
      database: 'dw',
      ssl: { rejectUnauthorized: true, minVersion: 'TLSv1.2' },
      connectionTimeoutMillis: 10000,
    });
    expect(await passwordOf(config)).toBe('pw');
  });

  it('defaults redshift:// to port 5439', () => {
    expect(warehouseClientConfig({ ...warehouse, url: 'redshift://cluster.example.com' }, 1).port).toBe(5439);
  });

  it('uses the request fields, not the URL path, for a postgres:// warehouse, without TLS unless the URL asks', () => {
    const config = warehouseClientConfig({ ...warehouse, url: 'postgres://127.0.0.1:5433/ignored' }, 1);
    expect(config).toMatchObject({ host: '127.0.0.1', port: 5433, database: 'dw', user: 'loader', ssl: false });
    expect(warehouseClientConfig({ ...warehouse, url: 'postgres://h:1?sslmode=require' }, 1).ssl).toMatchObject({ rejectUnauthorized: false });
  });

  it('rejects an unsupported URL', () => {
    expect(() => warehouseClientConfig({ ...warehouse, url: 'http://cluster' }, 1)).toThrow(ConnectionStringError);
  });
});

describe('TCP keep-alive', () => {
  // A connection a NAT or load balancer dropped without a reset is only found dead by keep-alive probes
  // (node_modules/pg/lib/connection.js: `if (self._keepAlive) self.stream.setKeepAlive(true, self._keepAliveInitialDelayMillis)`).
  it('is on for sources, staging databases and warehouses', () => {
    const source = postgresClientConfig('postgres://u@db/sales', { encrypt: false, connectTimeoutMs: 1 });
    const target = warehouseClientConfig({ url: 'postgres://dw:5432', databaseName: 'dw', username: 'u', password: 'p' }, 1);
    for (const config of [source, target]) expect([config.keepAlive, config.keepAliveInitialDelayMillis]).toEqual([true, 60_000]);
  });

});

describe('postgres host policy at the driver (issue 36)', () => {
  const plain = { encrypt: false, connectTimeoutMs: 5000 };
  it('hands pg the address however it is spelled, so pg dials what the host policy checked (issue 36)', () => {
    expect(postgresClientConfig('postgres://u@0x7f.1/sales', plain).host).toBe('127.0.0.1');
    expect(postgresClientConfig('postgres://u@[::ffff:127.0.0.1]/sales', plain).host).toBe('::ffff:7f00:1');
    expect(warehouseClientConfig({ url: 'redshift://2130706433:5439', databaseName: 'dev', username: 'u', password: 'p' }, 1000).host).toBe('127.0.0.1');
  });

  it.each([
    'postgres://u:hunter2@%2Fvar%2Frun%2Fpostgresql/sales',
    'postgres://u:hunter2@db/sales?host=/tmp',
    'postgres://u:hunter2@db/sales?hostaddr=127.0.0.1',
    'postgres://u:hunter2@db.123/sales',
  ])('never builds a config that pg would connect to a Unix socket or another host: %s', (url) => {
    expect(() => postgresClientConfig(url, plain)).toThrow(UnsafeHostError);
    expect(() => postgresClientConfig(url, plain)).not.toThrow(/hunter2|tmp|var/);
  });

  it('refuses a warehouse URL whose host is a path', () => {
    expect(() => warehouseClientConfig({ url: 'redshift://%2Ftmp:5439', databaseName: 'dev', username: 'u', password: 'p' }, 1000)).toThrow(UnsafeHostError);
  });
});
