import { adoBoolean, parseAdoConnectionString } from './ado-connection-string';
import { parseSqlServerAddress } from './sql-server-address';

describe('parseAdoConnectionString', () => {
  it('reads pairs with case-insensitive keys and trimmed values', () => {
    const pairs = parseAdoConnectionString(' Server = tcp:host,1433 ; DATABASE=sales;User   ID=admin;;');
    expect(Object.fromEntries(pairs ?? [])).toEqual({ server: 'tcp:host,1433', database: 'sales', 'user id': 'admin' });
  });

  it('keeps quoted values whole, including separators, equals signs and doubled quotes', () => {
    const pairs = parseAdoConnectionString(`Password="a;b=""c""";Pwd='it''s; fine' ; Application Name = " spaced "`);
    expect(pairs?.get('password')).toBe('a;b="c"');
    expect(pairs?.get('pwd')).toBe("it's; fine");
    expect(pairs?.get('application name')).toBe(' spaced ');
  });

  it('treats == inside a key as a literal equals sign', () => {
    expect(parseAdoConnectionString('odd==key=value')?.get('odd=key')).toBe('value');
  });

  it('lets the last occurrence of a key win and allows empty values', () => {
    const pairs = parseAdoConnectionString('Database=a;Database=b;Password=');
    expect(pairs?.get('database')).toBe('b');
    expect(pairs?.get('password')).toBe('');
  });

  it.each([['Server'], ['Server=host;Database'], ['=value'], ['Password="unterminated'], ['Password="closed"trailing;x=y']])(
    'rejects malformed text %s',
    (text) => {
      expect(parseAdoConnectionString(text)).toBeNull();
    },
  );
});

describe('adoBoolean', () => {
  it.each([
    ['true', true],
    [' YES ', true],
    ['False', false],
    ['no', false],
    ['maybe', undefined],
    [undefined, undefined],
  ])('%s → %s', (text, value) => {
    expect(adoBoolean(text)).toBe(value);
  });
});

describe('parseSqlServerAddress', () => {
  it.each([
    ['sql.example.com', { host: 'sql.example.com' }],
    ['tcp:sql.example.com,1444', { host: 'sql.example.com', port: 1444 }],
    ['TCP: sql.example.com , 1444', { host: 'sql.example.com', port: 1444 }],
    ['sql.example.com\\PROD', { host: 'sql.example.com', instanceName: 'PROD' }],
    ['sql.example.com\\PROD,1500', { host: 'sql.example.com', port: 1500, instanceName: 'PROD' }],
    ['(local)', { host: 'localhost' }],
    ['.\\SQLEXPRESS', { host: 'localhost', instanceName: 'SQLEXPRESS' }],
    ['10.1.2.3,1433', { host: '10.1.2.3', port: 1433 }],
    ['[fe80::1],1433', { host: 'fe80::1', port: 1433 }],
  ])('%s', (value, address) => {
    expect(parseSqlServerAddress(value)).toEqual(address);
  });

  it.each([[''], ['np:\\\\host\\pipe\\sql\\query'], ['lpc:host'], ['(localdb)\\MSSQLLocalDB'], ['host,0'], ['host,abc'], ['host\\'], ['bad host']])(
    'rejects %s',
    (value) => {
      expect(parseSqlServerAddress(value)).toBeNull();
    },
  );
});
