import { ENGINE_PAIRS, POSTGRES_TO_POSTGRES, sqlServerToPostgres } from './engine-pairs';

describe('engine pairs of the generic suites', () => {
  it('runs PostgreSQL → PostgreSQL and lists the specification\'s SQL Server → Redshift first among the others', () => {
    expect(ENGINE_PAIRS[0]).toBe(POSTGRES_TO_POSTGRES);
    expect(POSTGRES_TO_POSTGRES.unavailable).toBeNull();
    expect(ENGINE_PAIRS.map((pair) => pair.name)).toEqual([
      'PostgreSQL → PostgreSQL',
      'SQL Server → Redshift',
      'SQL Server → PostgreSQL',
      'PostgreSQL → Redshift',
      'PostgreSQL → Redshift dialect executed on PostgreSQL (not a real Redshift)',
    ]);
  });

  it('says why each Redshift pair does not run, and refuses to be used', () => {
    for (const pair of ENGINE_PAIRS.filter((candidate) => candidate.name.endsWith('Redshift'))) {
      expect(pair.unavailable).toMatch(/no Redshift suite fixture yet \(issue 11\)/);
      expect(() => pair.sourceConnectionString({} as never)).toThrow(`${pair.name} does not run`);
    }
    const specified = ENGINE_PAIRS[1];
    if (!process.env['MSSQL_URL']) expect(specified?.unavailable).toContain('MSSQL_URL is not set');
    if (!process.env['REDSHIFT_URL']) expect(specified?.unavailable).toContain('REDSHIFT_URL is not set');
  });

  it('runs SQL Server → PostgreSQL exactly when MSSQL_URL names a server, and says so when it does not', () => {
    const unset = sqlServerToPostgres({});
    expect(unset.unavailable).toBe('MSSQL_URL is not set');
    expect(() => unset.openSource({} as never)).toThrow('SQL Server → PostgreSQL does not run: MSSQL_URL is not set');
    const set = sqlServerToPostgres({ MSSQL_URL: 'mssql://sa:Secret-1@sql.example.com:1433' });
    expect(set.unavailable).toBeNull();
    expect(set.tableName('public', 'items')).toBe('[dbo].[items]');
    expect(POSTGRES_TO_POSTGRES.tableName('public', 'items')).toBe('[public].[items]');
  });
});
