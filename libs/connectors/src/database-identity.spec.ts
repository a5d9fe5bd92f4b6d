import { databaseIdentityOf } from './database-identity';

describe('databaseIdentityOf', () => {
  it.each([
    ['postgres://a:p1@db.example:5432/Sales', 'postgres://db.example:5432/sales'],
    ['postgresql://b:other@DB.example/sales?sslmode=require', 'postgres://db.example:5432/sales'],
    ['Server=tcp:sql1,1433;Database=Shop;User ID=u;Password=x', 'sqlserver://sql1:1433/shop'],
    ['not a connection string', null],
  ])('%s → %s', (connectionString, identity) => {
    expect(databaseIdentityOf(connectionString)).toBe(identity);
  });

  it('is the same for two logins to one database and differs between databases', () => {
    expect(databaseIdentityOf('postgres://u1:p@h:5432/d')).toBe(databaseIdentityOf('postgres://u2:q@h:5432/d'));
    expect(databaseIdentityOf('postgres://u1:p@h:5432/d')).not.toBe(databaseIdentityOf('postgres://u1:p@h:5432/e'));
  });
});
