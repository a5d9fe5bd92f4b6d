import { randomInt } from 'node:crypto';

/**
 * Replicated logins (seed §4.1, Note): the source database's users that belong to SQL Server logins are
 * created on the staging server with random passwords. SQL Server keeps only a password's hash, so the
 * source's passwords cannot be copied; the random ones are sent once, as parameters, and kept nowhere.
 */

/** The seed's Note, returned by Create when logins were replicated. */
export const REPLICATED_LOGINS_NOTE =
  'Random passwords are assigned to replicated logins and users for security; they must be reset manually on the replica after initial seeding, and password changes are not replicated with the schema.';

/**
 * The source database's users that belong to SQL logins (type S with instance authentication: a user based on
 * a login), with their login, default schema and the fixed database roles they belong to (one row per role;
 * role NULL for none). Windows and Azure AD principals need no password and are left to the directory; dbo,
 * guest and the system users are skipped.
 *
 * A login the source login may not see comes back as login_name NULL rather than dropping its user: "Any login
 * can see their own login name, the system logins, and the fixed server roles. To see other logins, requires
 * ALTER ANY LOGIN, or a permission on the login." (sys.server_principals, Permissions:
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-server-principals-transact-sql)
 * authentication_type came with SQL Server 2012 (1 = instance authentication).
 */
export const SOURCE_SQL_USERS_SQL = `SELECT u.name AS user_name, l.name AS login_name, u.default_schema_name, r.name AS role_name
FROM sys.database_principals AS u
LEFT JOIN sys.server_principals AS l ON l.sid = u.sid
LEFT JOIN sys.database_role_members AS m ON m.member_principal_id = u.principal_id
LEFT JOIN sys.database_principals AS r ON r.principal_id = m.role_principal_id AND r.is_fixed_role = 1
WHERE u.type = 'S' AND u.authentication_type = 1 AND u.name NOT IN (N'dbo', N'guest', N'INFORMATION_SCHEMA', N'sys')
  AND (l.sid IS NULL OR (l.type = 'S' AND l.name <> N'sa'))
ORDER BY u.name, r.name`;

/**
 * Whether the source login sees every user of the source database: "Any user can see their own user name, the
 * system users, and the fixed database roles. To see other users, requires ALTER ANY USER, or a permission on
 * the user." (sys.database_principals, Permissions); VIEW DEFINITION on the database shows all its metadata
 * ("Metadata visibility configuration", https://learn.microsoft.com/sql/relational-databases/security/metadata-visibility-configuration).
 */
export const SOURCE_SEES_USERS_SQL = `SELECT CAST(CASE WHEN HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'VIEW DEFINITION') = 1 OR HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'ALTER ANY USER') = 1 THEN 1 ELSE 0 END AS int) AS sees_users`;

/**
 * @login, @password: creates the login when the staging server has none of that name (an existing login
 * keeps its password). Names and password reach the statement through QUOTENAME, never spliced in.
 */
export const CREATE_LOGIN_SQL = `IF SUSER_ID(@login) IS NULL
BEGIN
  DECLARE @create_login nvarchar(max) = N'CREATE LOGIN ' + QUOTENAME(@login) + N' WITH PASSWORD = ' + QUOTENAME(@password, N'''') + N', CHECK_POLICY = ON';
  EXEC (@create_login);
END`;

/**
 * @user, @password, @default_schema (NULL for none): on Azure SQL Database, a contained database user with its own
 * password, when the staging database has none of that name. There a login is created only in master ("In SQL
 * Database, you must be connected to the master database to create a login", and its CREATE LOGIN takes no
 * CHECK_POLICY: https://learn.microsoft.com/sql/t-sql/statements/create-login-transact-sql, tab SQL Database),
 * which a connection to the staging database cannot reach; users that authenticate at the database are "Always
 * allowed in SQL Database" (https://learn.microsoft.com/sql/t-sql/statements/create-user-transact-sql).
 */
export const CREATE_CONTAINED_USER_SQL = `IF DATABASE_PRINCIPAL_ID(@user) IS NULL
BEGIN
  DECLARE @create_user nvarchar(max) = N'CREATE USER ' + QUOTENAME(@user) + N' WITH PASSWORD = ' + QUOTENAME(@password, N'''')
    + ISNULL(N', DEFAULT_SCHEMA = ' + QUOTENAME(@default_schema), N'');
  EXEC (@create_user);
END`;

/** @user, @login, @default_schema (NULL for none): the database user of the login, when the staging database has none of that name. */
export const CREATE_USER_SQL = `IF DATABASE_PRINCIPAL_ID(@user) IS NULL
BEGIN
  DECLARE @create_user nvarchar(max) = N'CREATE USER ' + QUOTENAME(@user) + N' FOR LOGIN ' + QUOTENAME(@login)
    + ISNULL(N' WITH DEFAULT_SCHEMA = ' + QUOTENAME(@default_schema), N'');
  EXEC (@create_user);
END`;

/** @user, @role: adds the user to a fixed database role it is not a member of yet. */
export const ADD_ROLE_MEMBER_SQL = `IF DATABASE_PRINCIPAL_ID(@role) IS NOT NULL AND IS_ROLEMEMBER(@role, @user) = 0
BEGIN
  DECLARE @add_member nvarchar(max) = N'ALTER ROLE ' + QUOTENAME(@role) + N' ADD MEMBER ' + QUOTENAME(@user);
  EXEC (@add_member);
END`;

export interface SourceSqlUserRow {
  user_name: string;
  /** NULL when the source login may not see the user's login. */
  login_name: string | null;
  default_schema_name: string | null;
  role_name: string | null;
}

export interface SqlUser {
  user: string;
  /** null when the source login may not see it. */
  login: string | null;
  defaultSchema: string | null;
  roles: string[];
}

/** One user per name with all its fixed roles (the rows come ordered by user). */
export function sqlUsersOf(rows: readonly SourceSqlUserRow[]): SqlUser[] {
  const users = new Map<string, SqlUser>();
  for (const row of rows) {
    const user = users.get(row.user_name) ?? { user: row.user_name, login: row.login_name, defaultSchema: row.default_schema_name, roles: [] };
    users.set(row.user_name, user);
    if (row.role_name !== null && !user.roles.includes(row.role_name)) user.roles.push(row.role_name);
  }
  return [...users.values()];
}

const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
const SYMBOLS = '!#%*+-=?@^_';

/**
 * A password Windows' password policy (CHECK_POLICY) accepts: 32 characters from a CSPRNG with upper and
 * lower case letters, digits and symbols, none of which needs quoting in a connection string.
 */
export function randomPassword(): string {
  const alphabet = UPPER + LOWER + DIGITS + SYMBOLS;
  const required = [UPPER, LOWER, DIGITS, SYMBOLS].map((set) => set[randomInt(set.length)] ?? '');
  const rest = Array.from({ length: 28 }, () => alphabet[randomInt(alphabet.length)] ?? '');
  const characters = [...required, ...rest];
  for (let index = characters.length - 1; index > 0; index -= 1) {
    const other = randomInt(index + 1);
    [characters[index], characters[other]] = [characters[other] ?? '', characters[index] ?? ''];
  }
  return characters.join('');
}
