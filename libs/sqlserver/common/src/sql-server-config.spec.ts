import { ConnectionStringError, UnsafeHostError } from '@svc/engines';
import { sqlServerConfig } from './sql-server-config';

describe('sqlServerConfig', () => {
  const plain = { encrypt: false, connectTimeoutMs: 7000 };

  it('reads an ADO string with Server=tcp:host,port', () => {
    const config = sqlServerConfig('Server=tcp:sql.example.com,1444;Initial Catalog=sales;User ID=app;Password="p;w";', plain);
    expect(config).toEqual({
      server: 'sql.example.com',
      port: 1444,
      user: 'app',
      password: 'p;w',
      database: 'sales',
      connectionTimeout: 7000,
      // Every connect through the dial guard (dial-guard.ts).
      options: { encrypt: false, trustServerCertificate: true, cryptoCredentialsDetails: { minVersion: 'TLSv1.2' }, connector: expect.any(Function) as unknown },
    });
  });

  it('defaults the port to 1433 and resolves a named instance without one', () => {
    expect(sqlServerConfig('Data Source=sql.example.com;Database=x', plain)).toMatchObject({ port: 1433 });
    const named = sqlServerConfig('Data Source=sql.example.com\\PROD;Database=x', plain);
    expect(named.port).toBeUndefined();
    expect(named.options?.instanceName).toBe('PROD');
  });

  it('lets a port win over an instance name', () => {
    const config = sqlServerConfig('Server=sql.example.com\\PROD,1500', plain);
    expect(config.port).toBe(1500);
    expect(config.options?.instanceName).toBeUndefined();
  });

  it('encrypts with certificate verification when EncryptDataInTransit is true', () => {
    expect(sqlServerConfig('Server=h;Database=x', { encrypt: true, connectTimeoutMs: 1 }).options).toMatchObject({
      encrypt: true,
      trustServerCertificate: false,
      cryptoCredentialsDetails: { minVersion: 'TLSv1.2' },
    });
  });

  it('honours Encrypt= and TrustServerCertificate= of the string', () => {
    expect(sqlServerConfig('Server=h;Encrypt=yes;TrustServerCertificate=true', plain).options).toMatchObject({
      encrypt: true,
      trustServerCertificate: true,
    });
    expect(sqlServerConfig('Server=h;Encrypt=strict', { encrypt: true, connectTimeoutMs: 1 }).options?.encrypt).toBe('strict');
    expect(sqlServerConfig('Server=h;Encrypt=false', { encrypt: true, connectTimeoutMs: 1 }).options?.encrypt).toBe(true);
  });

  it('reads an mssql:// URL with instance and query options', () => {
    const config = sqlServerConfig('mssql://app:p%40ss@sql.example.com/PROD/sales?encrypt=true&TrustServerCertificate=true', plain);
    expect(config).toMatchObject({ server: 'sql.example.com', user: 'app', password: 'p@ss', database: 'sales' });
    expect(config.options).toMatchObject({ instanceName: 'PROD', encrypt: true, trustServerCertificate: true });
    expect(sqlServerConfig('mssql://app:pw@sql.example.com:1444/sales', plain)).toMatchObject({ port: 1444, database: 'sales' });
  });

  it.each([['Server=np:\\\\h\\pipe'], ['Database=x'], ['Server="open'], ['mssql://h/a/b/c']])('rejects %s without quoting it', (text) => {
    expect(() => sqlServerConfig(`${text};Password=hunter2`, plain)).toThrow(ConnectionStringError);
    expect(() => sqlServerConfig(`${text};Password=hunter2`, plain)).not.toThrow(/hunter2/);
  });

  it('hands tedious the address however it is spelled, so it dials what the host policy checked (issue 36)', () => {
    expect(sqlServerConfig('Server=tcp:0x7f.1,1433;Database=x', plain).server).toBe('127.0.0.1');
    expect(sqlServerConfig('Data Source=[::FFFF:127.0.0.1]\\SQL;Database=x', plain).server).toBe('::ffff:7f00:1');
    expect(sqlServerConfig('mssql://u:p@0177.0.0.1/x', plain).server).toBe('127.0.0.1');
    expect(() => sqlServerConfig('Server=1.2.3.4.5;Password=hunter2', plain)).toThrow(UnsafeHostError);
  });
});
