import { databaseNameOf } from './database-name';
import { sourceEngineOf, warehouseEngineOf } from './engine';

describe('sourceEngineOf', () => {
  it.each([
    ['postgres://u:p@db.example.com:5432/sales', 'postgres'],
    ['postgresql://db.example.com/sales?sslmode=require', 'postgres'],
    ['  POSTGRES://db/sales', 'postgres'],
    ['Server=tcp:sql.example.com,1433;Database=sales;User ID=u;Password=p;', 'sqlserver'],
    ['Data Source=sql.example.com\\PROD;Initial Catalog=sales;Integrated Security=true', 'sqlserver'],
    ['server=(local);database=sales', 'sqlserver'],
    ['Address=10.0.0.5,1444;uid=u;pwd=x://y', 'sqlserver'],
    ['mssql://u:p@sql.example.com:1433/sales', 'sqlserver'],
    ['mysql://u:p@host/db', 'mysql'],
    ['mariadb://u:p@db.example.com:3306/shop?ssl-mode=required', 'mysql'],
  ] as const)('%s → %s', (connectionString, engine) => {
    expect(sourceEngineOf(connectionString)).toBe(engine);
  });

  it.each([
    [''],
    ['mysqlx://u:p@host/db'],
    ['Host=pg.example.com;Database=sales'],
    ['Server=np:\\\\host\\pipe\\sql\\query;Database=x'],
    ['Server=(localdb)\\MSSQLLocalDB;Database=x'],
    ['Server=host,notaport;Database=x'],
    ['Server="unterminated;Database=x'],
    ['just some text'],
    ['mssql:///db'],
  ])('%s → null', (connectionString) => {
    expect(sourceEngineOf(connectionString)).toBeNull();
  });
});

describe('warehouseEngineOf', () => {
  it.each([
    ['examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439', 'redshift'],
    ['redshift://examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439', 'redshift'],
    ['redshift://cluster.example.com', 'redshift'],
    ['127.0.0.1:5439', 'redshift'],
    ['[::1]:5439', 'redshift'],
    ['postgres://warehouse.example.com:5432', 'postgres'],
    ['postgresql://127.0.0.1:5432/dw?sslmode=require', 'postgres'],
  ] as const)('%s → %s', (url, engine) => {
    expect(warehouseEngineOf(url)).toBe(engine);
  });

  it.each([[''], ['cluster.example.com'], ['cluster.example.com:0'], ['cluster.example.com:70000'], ['http://cluster:5439'], ['has space:5439'], ['postgres://']])(
    '%s → null',
    (url) => {
      expect(warehouseEngineOf(url)).toBeNull();
    },
  );
});

describe('databaseNameOf', () => {
  it.each([
    ['postgres://u:p@host:5432/sales', 'sales'],
    ['postgres://u:p@host/my%20db?sslmode=require', 'my db'],
    ['postgres://u:p@host:5432', null],
    ['postgres://u:p@host/', null],
    ['Server=host;Database=sales;', 'sales'],
    ['Server=host;Initial Catalog = "odd;name" ;', 'odd;name'],
    ['Server=host;User ID=u', null],
    ['mssql://u:p@host:1433/sales', 'sales'],
    ['mssql://u:p@host/PROD/sales', 'sales'],
    ['mssql://u:p@host', null],
    ['not a connection string', null],
  ])('%s → %s', (connectionString, name) => {
    expect(databaseNameOf(connectionString)).toBe(name);
  });
});
