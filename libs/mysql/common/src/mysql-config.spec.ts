import { ConnectionStringError, UnsafeHostError } from '@svc/engines';
import { MYSQL_DEFAULT_PORT, mysqlConnectionOptions, mysqlIdentity } from './mysql-config';

const plain = { encrypt: false, connectTimeoutMs: 5000 };
const encrypted = { encrypt: true, connectTimeoutMs: 5000 };

/** The message a refused string is refused with (the test fails when it is not refused). */
function refusal(connectionString: string, options = plain): string {
  try {
    mysqlConnectionOptions(connectionString, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectionStringError);
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error(`${connectionString} was not refused`);
}

describe('mysqlConnectionOptions: the URL', () => {
  it('takes host, port, user, password and database from the URL', () => {
    expect(mysqlConnectionOptions('mysql://app:s3cret@db.example.com:3307/sales', plain)).toMatchObject({
      host: 'db.example.com',
      port: 3307,
      user: 'app',
      password: 's3cret',
      database: 'sales',
      connectTimeout: 5000,
    });
  });

  it('reads mariadb:// alike, whatever the case of the scheme', () => {
    expect(mysqlConnectionOptions('mariadb://app:pw@db/sales', plain)).toMatchObject({ host: 'db', user: 'app', password: 'pw', database: 'sales' });
    expect(mysqlConnectionOptions('MySQL://app@db/sales', plain)).toMatchObject({ host: 'db', database: 'sales' });
  });

  it('percent-decodes the user, the password and the database', () => {
    expect(mysqlConnectionOptions('mysql://app%40corp:p%40ss%3Bw%2Frd%20x@db/sales%20db', plain)).toMatchObject({ user: 'app@corp', password: 'p@ss;w/rd x', database: 'sales db' });
    expect(mysqlConnectionOptions('mysql://u@db/a%2Fb', plain).database).toBe('a/b');
  });

  it('defaults the port to 3306, the user to root, the password to none and the host to localhost', () => {
    expect(mysqlConnectionOptions('mysql://db/sales', plain)).toMatchObject({ host: 'db', port: MYSQL_DEFAULT_PORT, user: 'root', password: '' });
    expect(MYSQL_DEFAULT_PORT).toBe(3306);
    expect(mysqlConnectionOptions('mysql:///sales', plain)).toMatchObject({ host: 'localhost', database: 'sales' });
  });

  it('names no database when the URL has no path: the string reads every database of the server', () => {
    expect(mysqlConnectionOptions('mysql://u:p@db', plain).database).toBeUndefined();
    expect(mysqlConnectionOptions('mysql://u:p@db/', plain).database).toBeUndefined();
    expect('database' in mysqlConnectionOptions('mysql://u:p@db', plain)).toBe(false);
  });

  it('hands the driver an address as the host policy reads it, however it is spelled', () => {
    expect(mysqlConnectionOptions('mysql://u@0x7f.1/sales', plain).host).toBe('127.0.0.1');
    expect(mysqlConnectionOptions('mysql://u@[::1]:3310/sales', plain)).toMatchObject({ host: '::1', port: 3310 });
  });

  it('has every value handed back as the server\'s text, in UTC and utf8mb4, one statement at a time', () => {
    expect(mysqlConnectionOptions('mysql://u@db/sales', plain)).toMatchObject({
      charset: 'utf8mb4_general_ci',
      timezone: 'Z',
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      multipleStatements: false,
      enableKeepAlive: true,
    });
  });

  it('dials through its own stream (the dial policy), never the driver\'s own connect', () => {
    expect(typeof mysqlConnectionOptions('mysql://u@db/sales', plain).stream).toBe('function');
  });
});

describe('mysqlConnectionOptions: refused strings', () => {
  it.each([
    ['another scheme', 'postgres://u:p@db/sales'],
    ['an ADO string', 'Server=db;Database=sales;Password=p'],
    ['two path segments', 'mysql://u:p@db/sales/more'],
    ['a port out of range', 'mysql://u:p@db:70000/sales'],
    ['a badly percent-encoded password', 'mysql://u:%zz@db/sales'],
  ])('refuses %s', (_case, connectionString) => {
    expect(refusal(connectionString)).not.toBe('');
  });

  it('names the query parameters it does not read, never their values', () => {
    const message = refusal('mysql://u:p@db/sales?charset=latin1&connectTimeout=99');
    expect(message).toMatch(/charset, connecttimeout/);
    expect(message).toMatch(/only ssl-mode is read/);
    expect(message).not.toMatch(/latin1|99/);
  });

  it('refuses a server named in the query (host=, hostaddr=)', () => {
    expect(() => mysqlConnectionOptions('mysql://u:p@db/sales?host=other', plain)).toThrow(UnsafeHostError);
    expect(() => mysqlConnectionOptions('mysql://u:p@db/sales?hostaddr=10.0.0.1', plain)).toThrow(UnsafeHostError);
  });

  it('refuses a socket or path as the host', () => {
    expect(() => mysqlConnectionOptions('mysql://u:p@%2Fvar%2Frun%2Fmysqld.sock/sales', plain)).toThrow(UnsafeHostError);
  });

  it.each(['verify-ca', 'require', 'on', ''])('refuses ssl-mode=%s, listing the modes it reads', (mode) => {
    expect(refusal(`mysql://u:p@db/sales?ssl-mode=${mode}`)).toBe('ssl-mode must be one of disabled, preferred, required, verify_ca, verify_identity');
  });

  it('refuses ssl-mode=disabled when EncryptDataInTransit is true', () => {
    expect(refusal('mysql://u:p@db/sales?ssl-mode=disabled', encrypted)).toMatch(/contradicts EncryptDataInTransit/);
  });

  it.each([
    'mysql://app:Sup3r-S3cret@db/sales/more',
    'mysql://app:Sup3r-S3cret@db/a/b/c',
    'mysql://app:Sup3r-S3cret@db/sales?charset=x',
    'mysql://app:Sup3r-S3cret@db/sales?ssl-mode=bogus',
    'mysql://app:Sup3r-S3cret@db/sales?ssl-mode=disabled',
    'mysql://app:Sup3r-S3cret@db/sales?host=x',
    'mysql://app:Sup3r-S3cret@db:99999/sales',
    'mysql://app:Sup3r-S3cret@bad_host!/sales',
    'Server=db;Password=Sup3r-S3cret',
  ])('never quotes the password: %s', (connectionString) => {
    expect(refusal(connectionString, encrypted)).not.toContain('Sup3r-S3cret');
  });
});

describe('mysqlConnectionOptions: TLS', () => {
  const verified = { minVersion: 'TLSv1.2', rejectUnauthorized: true };
  const unverified = { minVersion: 'TLSv1.2', rejectUnauthorized: false };

  it.each<[string, boolean, object | undefined]>([
    ['', false, undefined],
    ['', true, verified],
    ['?ssl-mode=disabled', false, undefined],
    ['?ssl-mode=preferred', false, undefined],
    ['?ssl-mode=preferred', true, verified],
    ['?ssl-mode=required', false, unverified],
    ['?ssl-mode=required', true, unverified],
    ['?ssl-mode=verify_ca', false, verified],
    ['?ssl-mode=verify_ca', true, verified],
    ['?ssl-mode=verify_identity', false, verified],
    ['?ssl-mode=VERIFY_IDENTITY', false, verified],
    ['?sslmode=required', false, unverified],
    ['?SSL-MODE=required', false, unverified],
  ])('%s with EncryptDataInTransit %s', (query, encrypt, ssl) => {
    expect(mysqlConnectionOptions(`mysql://u:p@db/sales${query}`, { encrypt, connectTimeoutMs: 1 }).ssl).toEqual(ssl);
  });
});

describe('mysqlIdentity: the database two strings name, whoever logs in', () => {
  it.each<[string, string | null]>([
    ['mysql://app:pw@DB.Example.com/Sales', 'mysql://db.example.com:3306/sales'],
    ['mariadb://other:pw2@db.example.com:3306/sales?ssl-mode=required', 'mysql://db.example.com:3306/sales'],
    ['mysql://u@db:3307/sales', 'mysql://db:3307/sales'],
    ['mysql://u@0x7f.1/sales', 'mysql://127.0.0.1:3306/sales'],
    ['mysql://u@db', 'mysql://db:3306/'],
    ['mysql://u@db/a/b', null],
    ['mysql://u@db/sales?charset=x', null],
    ['postgres://u@db/sales', null],
    ['not a url', null],
  ])('%s is %j', (connectionString, identity) => {
    expect(mysqlIdentity(connectionString)).toBe(identity);
  });

  it('keeps no credential in the identity', () => {
    expect(mysqlIdentity('mysql://app:Sup3r-S3cret@db/sales')).not.toMatch(/app|Sup3r/);
  });
});
