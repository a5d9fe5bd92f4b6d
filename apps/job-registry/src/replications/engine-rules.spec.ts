import { engineMismatches } from './engine-rules';

const pg = 'postgres://u@h/db';
const mssql = 'Server=tcp:h,1433;Database=db;User Id=u;Password=p';

describe('engineMismatches', () => {
  it('accepts the same engine on both sides', () => {
    expect(engineMismatches({ source: { connectionString: pg }, staging: { connectionString: pg } } as never)).toEqual([]);
  });

  it('names the staging field when engines differ', () => {
    expect(engineMismatches({ source: { connectionString: mssql }, staging: { connectionString: pg } } as never)).toEqual([
      "{Staging\\ConnectionString}: the staging database must use the source's engine (SQL Server), not PostgreSQL",
    ]);
  });

  it('stages a source whose engine cannot be a staging database (MySQL) in one that can, and refuses one that cannot', () => {
    const mysql = 'mysql://u:p@h:3306/shop';
    expect(engineMismatches({ source: { connectionString: mysql }, staging: { connectionString: pg } } as never)).toEqual([]);
    expect(engineMismatches({ source: { connectionString: mysql }, staging: { connectionString: mysql } } as never)).toEqual([
      '{Staging\\ConnectionString}: MySQL cannot be a staging database yet: name a database of an engine that can (PostgreSQL)',
    ]);
    expect(engineMismatches({ source: { connectionString: pg }, staging: { connectionString: mysql } } as never)).toEqual([
      '{Staging\\ConnectionString}: MySQL cannot be a staging database yet: name a database of an engine that can (PostgreSQL)',
    ]);
  });

  it('uses the Alter field name when given', () => {
    expect(engineMismatches({ source: { connectionString: pg }, staging: { connectionString: mssql } } as never, '{DestinationConnectionString}')[0]).toMatch(
      /^\{DestinationConnectionString\}: /,
    );
  });
});
