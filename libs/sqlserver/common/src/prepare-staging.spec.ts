import { SERVER_MAJOR_VERSION_SQL, SOURCE_COMPATIBILITY_LEVEL_SQL } from './compatibility-level';
import { prepareStagingDatabase, statementFailure } from './prepare-staging';
import { CREATE_LOGIN_SQL, REPLICATED_LOGINS_NOTE, SOURCE_SQL_USERS_SQL, type SourceSqlUserRow } from './replicated-logins';
import type { TsqlDatabase, TsqlParams } from './tsql-session';

/** A database that answers the statements it knows and records everything it is sent. */
class Answering implements TsqlDatabase {
  readonly sent: { text: string; params: TsqlParams }[] = [];

  constructor(
    private readonly answers: ReadonlyMap<string, object[]>,
    private readonly failing: ReadonlyMap<string, number> = new Map(),
  ) {}

  query<Row extends object>(text: string, params: TsqlParams = {}): Promise<Row[]> {
    this.sent.push({ text, params });
    const failure = [...this.failing].find(([prefix]) => text.startsWith(prefix));
    if (failure) return Promise.reject(Object.assign(new Error(`refused: ${JSON.stringify(params)}`), { number: failure[1] }));
    return Promise.resolve((this.answers.get(text) ?? []) as Row[]);
  }

  inTransaction<T>(): Promise<T> {
    return Promise.reject(new Error('not used'));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const user = (row: Partial<SourceSqlUserRow>): SourceSqlUserRow => ({ user_name: 'app', login_name: 'app', default_schema_name: 'dbo', role_name: null, ...row });
const sourceWith = (level: number, users: SourceSqlUserRow[] = []) =>
  new Answering(new Map<string, object[]>([[SOURCE_COMPATIBILITY_LEVEL_SQL, [{ compatibility_level: level }]], [SOURCE_SQL_USERS_SQL, users]]));
const stagingOf = (major: number, level: number, failing?: ReadonlyMap<string, number>) =>
  new Answering(new Map<string, object[]>([[SERVER_MAJOR_VERSION_SQL, [{ major_version: major }]], [SOURCE_COMPATIBILITY_LEVEL_SQL, [{ compatibility_level: level }]]]), failing);

describe('prepareStagingDatabase', () => {
  it('sets the source level on a staging database that has another, and returns no Note without SQL logins', async () => {
    const staging = stagingOf(13, 100);
    expect(await prepareStagingDatabase(sourceWith(130), staging, { replicateCompatibilityLevel: true, timeoutMs: 10_000 })).toEqual({ problems: [], note: '' });
    expect(staging.sent.map((statement) => statement.text)).toContain('ALTER DATABASE CURRENT SET COMPATIBILITY_LEVEL = 130');
  });

  it('leaves the level alone when ReplicateCompatibilityLevel is false or the levels agree', async () => {
    const off = stagingOf(13, 100);
    await prepareStagingDatabase(sourceWith(130), off, { replicateCompatibilityLevel: false, timeoutMs: 10_000 });
    const equal = stagingOf(13, 130);
    await prepareStagingDatabase(sourceWith(130), equal, { replicateCompatibilityLevel: true, timeoutMs: 10_000 });
    for (const staging of [off, equal]) expect(staging.sent.map((statement) => statement.text).join('\n')).not.toContain('ALTER DATABASE');
  });

  it('refuses a level the staging server cannot take, naming both and the way out, and changes nothing', async () => {
    const staging = stagingOf(12, 120);
    const prepared = await prepareStagingDatabase(sourceWith(130, [user({})]), staging, { replicateCompatibilityLevel: true, timeoutMs: 10_000 });
    expect(prepared.note).toBe('');
    expect(prepared.problems.map((problem) => problem.field)).toEqual(['replicateCompatibilityLevel']);
    expect(prepared.problems[0]?.reason).toContain('compatibility level 130 cannot be set on the staging server (SQL Server 2014');
    expect(staging.sent.map((statement) => statement.text).join('\n')).not.toMatch(/ALTER DATABASE|CREATE LOGIN/);
  });

  it('creates each SQL login and user with a fresh random password and its fixed roles, and returns the seed Note', async () => {
    const staging = stagingOf(15, 150);
    const users = [user({ role_name: 'db_datareader' }), user({ role_name: 'db_datawriter' }), user({ user_name: 'report', login_name: 'report_login', default_schema_name: null })];
    expect(await prepareStagingDatabase(sourceWith(150, users), staging, { replicateCompatibilityLevel: false, timeoutMs: 10_000 })).toEqual({ problems: [], note: REPLICATED_LOGINS_NOTE });
    const logins = staging.sent.filter((statement) => statement.text === CREATE_LOGIN_SQL);
    expect(logins.map((statement) => statement.params['login'])).toEqual(['app', 'report_login']);
    const passwords = logins.map((statement) => statement.params['password']);
    expect(new Set(passwords).size).toBe(2);
    for (const statement of staging.sent) expect(statement.text).not.toContain(String(passwords[0]));
    expect(staging.sent.filter((statement) => statement.text.includes('ADD MEMBER')).map((statement) => statement.params)).toEqual([
      { user: 'app', role: 'db_datareader' },
      { user: 'app', role: 'db_datawriter' },
    ]);
  });

  it('refuses with the permission it needs when the staging login may not create logins, quoting no password', async () => {
    const staging = stagingOf(15, 150, new Map([[CREATE_LOGIN_SQL, 15247]]));
    const prepared = await prepareStagingDatabase(sourceWith(150, [user({})]), staging, { replicateCompatibilityLevel: false, timeoutMs: 10_000 });
    expect(prepared.note).toBe('');
    expect(prepared.problems).toEqual([
      {
        field: 'stagingConnectionString',
        reason: "cannot create the source database's SQL logins and users on the staging server: permission denied (SQL Server error 15247); the staging login needs ALTER ANY LOGIN and ALTER ANY USER",
      },
    ]);
  });

  /*
   * ALTER DATABASE … SET COMPATIBILITY_LEVEL "Requires ALTER permission on the database"
   * (https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-compatibility-level); without it SQL
   * Server raises 5011 "User does not have permission to alter database '%.*ls', the database does not exist, or the
   * database is not in a state that allows access checks." (database engine errors 5000–5999).
   */
  it('says permission denied when the staging login may not alter the database (5011)', async () => {
    const staging = stagingOf(13, 100, new Map([['ALTER DATABASE', 5011]]));
    const prepared = await prepareStagingDatabase(sourceWith(130), staging, { replicateCompatibilityLevel: true, timeoutMs: 10_000 });
    expect(prepared.problems[0]?.reason).toBe(
      'cannot set compatibility level 130 on the staging database: permission denied (SQL Server error 5011); the staging login needs ALTER on the database',
    );
  });

  it('words statement failures without their text', () => {
    expect(statementFailure(Object.assign(new Error("Cannot alter the login 'x', password 'secret'"), { number: 15151 }), 10_000)).toBe('permission denied (SQL Server error 15151)');
    expect(statementFailure(Object.assign(new Error('boom'), { number: 5069 }), 10_000)).toBe('SQL Server error 5069');
    expect(statementFailure(new Error('socket'), 10_000)).toBe('unexpected error');
    expect(statementFailure(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:1433'), { code: 'ECONNREFUSED' }), 10_000)).toBe('cannot reach the server (refused, timed out, unknown host or TLS failed)');
  });
});

/**
 * Azure SQL Database reports ProductVersion 12.0.x whatever level it takes, and says what it is in
 * SERVERPROPERTY('EngineEdition'): 5 Azure SQL Database, 8 Azure SQL Managed Instance
 * (https://learn.microsoft.com/en-us/sql/t-sql/functions/serverproperty-transact-sql). Its levels:
 * https://learn.microsoft.com/en-us/sql/t-sql/statements/alter-database-transact-sql-compatibility-level.
 */
describe('prepareStagingDatabase on Azure SQL', () => {
  const azureStaging = (engineEdition: number, level: number) =>
    new Answering(
      new Map<string, object[]>([
        [SERVER_MAJOR_VERSION_SQL, [{ major_version: 12, engine_edition: engineEdition }]],
        [SOURCE_COMPATIBILITY_LEVEL_SQL, [{ compatibility_level: level }]],
      ]),
    );

  it.each([
    ['Azure SQL Database', 5],
    ['Azure SQL Managed Instance', 8],
  ])('sets level 150 on %s, which reports version 12', async (_name, engineEdition) => {
    const staging = azureStaging(engineEdition, 100);
    expect(await prepareStagingDatabase(sourceWith(150), staging, { replicateCompatibilityLevel: true, timeoutMs: 10_000 })).toEqual({ problems: [], note: '' });
    expect(staging.sent.map((statement) => statement.text)).toContain('ALTER DATABASE CURRENT SET COMPATIBILITY_LEVEL = 150');
  });

  it('refuses a level Azure SQL Database does not take, naming it as Azure SQL Database', async () => {
    const prepared = await prepareStagingDatabase(sourceWith(90), azureStaging(5, 100), { replicateCompatibilityLevel: true, timeoutMs: 10_000 });
    expect(prepared.problems[0]?.reason).toContain('compatibility level 90 cannot be set on the staging server (Azure SQL Database takes 100, 110');
  });
});
