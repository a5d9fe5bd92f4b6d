import { SERVER_MAJOR_VERSION_SQL } from './compatibility-level';
import { prepareStagingDatabase } from './prepare-staging';
import { REPLICATED_LOGINS_NOTE } from './replicated-logins';
import type { TsqlDatabase, TsqlParams } from './tsql-session';

interface SourceUser {
  name: string;
  login: string;
  defaultSchema: string | null;
  roles: string[];
}

/**
 * A source database whose catalog views show what Microsoft documents a login may see.
 * sys.server_principals: "Any login can see their own login name, the system logins, and the fixed server
 * roles. To see other logins, requires ALTER ANY LOGIN, or a permission on the login."
 * (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-server-principals-transact-sql)
 * sys.database_principals: "Any user can see their own user name, the system users, and the fixed database roles.
 * To see other users, requires ALTER ANY USER, or a permission on the user."
 * (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-principals-transact-sql)
 * "The visibility of metadata is limited to securables that a user either owns or on which the user has been
 * granted some permission" (https://learn.microsoft.com/sql/relational-databases/security/metadata-visibility-configuration):
 * VIEW ANY DEFINITION shows every login, VIEW DEFINITION on the database every user.
 *
 * The double reads the statement it is sent the way SQL Server would treat its joins: an inner JOIN of
 * sys.server_principals drops a user whose login row is not visible, a LEFT JOIN keeps it with a NULL login.
 * HAS_PERMS_BY_NAME answers from the same grants.
 */
class PrincipalsSource implements TsqlDatabase {
  constructor(
    private readonly users: readonly SourceUser[],
    private readonly caller: { login: string; seesLogins: boolean; seesUsers: boolean },
  ) {}

  query<Row extends object>(text: string): Promise<Row[]> {
    if (text.includes('HAS_PERMS_BY_NAME')) return Promise.resolve([{ sees_users: this.caller.seesUsers ? 1 : 0 }] as Row[]);
    if (!text.includes('FROM sys.database_principals AS u')) return Promise.resolve([]);
    const leftJoin = /LEFT\s+JOIN\s+sys\.server_principals/.test(text);
    const rows = this.users
      .filter((user) => this.caller.seesUsers || user.login === this.caller.login)
      .flatMap((user) => {
        const loginVisible = this.caller.seesLogins || user.login === this.caller.login;
        if (!loginVisible && !leftJoin) return [];
        const login_name = loginVisible ? user.login : null;
        const roles = user.roles.length > 0 ? user.roles : [null];
        return roles.map((role_name) => ({ user_name: user.name, login_name, default_schema_name: user.defaultSchema, role_name }));
      });
    return Promise.resolve(rows as Row[]);
  }

  inTransaction<T>(): Promise<T> {
    return Promise.reject(new Error('not used'));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A staging database on SQL Server or Azure SQL Database (SERVERPROPERTY('EngineEdition') 5,
 * https://learn.microsoft.com/sql/t-sql/functions/serverproperty-transact-sql). On Azure SQL Database CREATE LOGIN
 * fails outside master ("In SQL Database, you must be connected to the master database to create a login") and
 * its syntax has no CHECK_POLICY (https://learn.microsoft.com/sql/t-sql/statements/create-login-transact-sql, tab
 * SQL Database); a contained user WITH PASSWORD is "Always allowed in SQL Database"
 * (https://learn.microsoft.com/sql/t-sql/statements/create-user-transact-sql). The error numbers (40517 for an
 * option this version does not take, 5001 "User must be in the master database") are ours to confirm on a live server.
 */
class Staging implements TsqlDatabase {
  readonly created: { user: string; contained: boolean }[] = [];
  readonly roles: { user: string; role: string }[] = [];

  constructor(
    private readonly engineEdition: number,
    private readonly refusedUsers: ReadonlySet<string> = new Set(),
  ) {}

  query<Row extends object>(text: string, params: TsqlParams = {}): Promise<Row[]> {
    if (text === SERVER_MAJOR_VERSION_SQL) return Promise.resolve([{ major_version: this.engineEdition === 5 ? 12 : 16, engine_edition: this.engineEdition }] as Row[]);
    const user = String(params['user'] ?? '');
    if (text.includes('CREATE LOGIN') && this.engineEdition === 5) {
      return Promise.reject(Object.assign(new Error('refused'), { number: text.includes('CHECK_POLICY') ? 40517 : 5001 }));
    }
    if (text.includes("N'CREATE USER '")) {
      if (this.refusedUsers.has(user)) return Promise.reject(Object.assign(new Error('refused'), { number: 15247 }));
      this.created.push({ user, contained: text.includes('WITH PASSWORD') });
    }
    if (text.includes('ADD MEMBER')) this.roles.push({ user, role: String(params['role']) });
    return Promise.resolve([]);
  }

  inTransaction<T>(): Promise<T> {
    return Promise.reject(new Error('not used'));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const users: SourceUser[] = [
  { name: 'app', login: 'app_login', defaultSchema: 'dbo', roles: ['db_datareader', 'db_datawriter'] },
  { name: 'report', login: 'report_login', defaultSchema: null, roles: [] },
  { name: 'svc', login: 'svc_login', defaultSchema: 'dbo', roles: [] },
];
const options = { replicateCompatibilityLevel: false, timeoutMs: 10_000 };
const everything = { login: 'svc_login', seesLogins: true, seesUsers: true };

describe('replicated logins on Azure SQL Database (issue 21 item 5)', () => {
  it('creates contained users with their roles instead of logins, and says so in the Note', async () => {
    const staging = new Staging(5);
    const prepared = await prepareStagingDatabase(new PrincipalsSource(users, everything), staging, options);
    expect(prepared.problems).toEqual([]);
    expect(staging.created).toEqual([
      { user: 'app', contained: true },
      { user: 'report', contained: true },
      { user: 'svc', contained: true },
    ]);
    expect(staging.roles).toEqual([
      { user: 'app', role: 'db_datareader' },
      { user: 'app', role: 'db_datawriter' },
    ]);
    expect(prepared.note).toContain(REPLICATED_LOGINS_NOTE);
    expect(prepared.note).toContain('contained database users');
  });

  it('never fails the Create: a user it cannot create is named in the Note', async () => {
    const staging = new Staging(5, new Set(['report']));
    const prepared = await prepareStagingDatabase(new PrincipalsSource(users, everything), staging, options);
    expect(prepared.problems).toEqual([]);
    expect(staging.created.map((created) => created.user)).toEqual(['app', 'svc']);
    expect(prepared.note).toContain('The source user report could not be created (or added to its roles) on the staging database: permission denied (SQL Server error 15247)');
  });

  it('still creates logins on SQL Server', async () => {
    const staging = new Staging(3);
    const prepared = await prepareStagingDatabase(new PrincipalsSource(users, everything), staging, options);
    expect(prepared).toEqual({ problems: [], note: REPLICATED_LOGINS_NOTE });
    expect(staging.created).toEqual([
      { user: 'app', contained: false },
      { user: 'report', contained: false },
      { user: 'svc', contained: false },
    ]);
  });
});

describe('a source login without permission to see logins or users (issue 21 item 10)', () => {
  it('copies what it sees and names in the Note the users whose logins it cannot see', async () => {
    const staging = new Staging(3);
    const prepared = await prepareStagingDatabase(new PrincipalsSource(users, { login: 'svc_login', seesLogins: false, seesUsers: true }), staging, options);
    expect(staging.created.map((created) => created.user)).toEqual(['svc']);
    expect(prepared.note).toContain(REPLICATED_LOGINS_NOTE);
    expect(prepared.note).toContain(
      'The logins of the source users app, report are not visible to the source login (it needs VIEW ANY DEFINITION or ALTER ANY LOGIN on the source server): those users were not copied',
    );
  });

  it('says so when it sees only its own user and login, even with nothing to copy', async () => {
    const staging = new Staging(3);
    const only = [{ name: 'svc', login: 'svc_login', defaultSchema: null, roles: [] }, ...users.slice(0, 2)];
    const prepared = await prepareStagingDatabase(new PrincipalsSource(only, { login: 'other_login', seesLogins: false, seesUsers: false }), staging, options);
    expect(staging.created).toEqual([]);
    expect(prepared.problems).toEqual([]);
    expect(prepared.note).toContain('The source login cannot see every user of the source database (it needs VIEW DEFINITION or ALTER ANY USER there)');
  });
});
