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

  it('stages MySQL in MySQL, and refuses another engine either way', () => {
    const mysql = 'mysql://u:p@h:3306/';
    expect(engineMismatches({ source: { connectionString: mysql }, staging: { connectionString: 'mariadb://u:p@staging:3306/' } } as never)).toEqual([]);
    expect(engineMismatches({ source: { connectionString: mysql }, staging: { connectionString: pg } } as never)).toEqual([
      "{Staging\\ConnectionString}: the staging database must use the source's engine (MySQL), not PostgreSQL",
    ]);
    expect(engineMismatches({ source: { connectionString: pg }, staging: { connectionString: mysql } } as never)).toEqual([
      "{Staging\\ConnectionString}: the staging database must use the source's engine (PostgreSQL), not MySQL",
    ]);
  });

  it('uses the Alter field name when given', () => {
    expect(engineMismatches({ source: { connectionString: pg }, staging: { connectionString: mssql } } as never, '{DestinationConnectionString}')[0]).toMatch(
      /^\{DestinationConnectionString\}: /,
    );
  });
});
