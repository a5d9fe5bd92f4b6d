import { parseSqlServerAddress } from './sql-server-address';

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
