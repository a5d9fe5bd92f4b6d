import { AZURE_SQL_DATABASE_EDITION, compatibilityLevelProblem, SERVER_MAJOR_VERSION_SQL, setCompatibilityLevelSql, SOURCE_COMPATIBILITY_LEVEL_SQL } from './compatibility-level';
import {
  ADD_ROLE_MEMBER_SQL,
  CREATE_CONTAINED_USER_SQL,
  CREATE_LOGIN_SQL,
  CREATE_USER_SQL,
  randomPassword,
  REPLICATED_LOGINS_NOTE,
  SOURCE_SEES_USERS_SQL,
  SOURCE_SQL_USERS_SQL,
  sqlUsersOf,
  type SourceSqlUserRow,
  type SqlUser,
} from './replicated-logins';
import { socketFailureReason, type StagingPreparation, type StagingPreparationField } from '@svc/engines';
import { sqlServerFailureReason } from './sql-server-failure';
import type { TsqlDatabase } from './tsql-session';

/** SQL Server error numbers of a statement refused for lack of permission. */
const PERMISSION_NUMBERS = new Set([229, 230, 262, 300, 916, 5011, 15151, 15247, 15562]);

/** A refused statement (or a failed connection) in a few words that quote nothing of the statement, its parameters or the connection string. */
export function statementFailure(error: unknown, timeoutMs: number): string {
  const number = (error as { number?: unknown } | null)?.number;
  if (typeof number !== 'number') {
    const context = { timeoutMs };
    return sqlServerFailureReason(error, context) ?? socketFailureReason(error) ?? 'unexpected error';
  }
  return PERMISSION_NUMBERS.has(number) ? `permission denied (SQL Server error ${number})` : `SQL Server error ${number}`;
}

const refused = (field: StagingPreparationField, reason: string): StagingPreparation => ({ problems: [{ field, reason }], note: '' });

/**
 * What Create (and an Alter of the staging database) does to a SQL Server staging database before the
 * replication is stored: gives it the source database's compatibility level when ReplicateCompatibilityLevel
 * is true (refused when the staging server cannot take that level), then creates the source's SQL logins and
 * users on it with random passwords (the seed's Note says so). Nothing here is retried: a problem is the answer.
 */
export async function prepareStagingDatabase(
  source: TsqlDatabase,
  staging: TsqlDatabase,
  options: { replicateCompatibilityLevel: boolean; timeoutMs: number },
): Promise<StagingPreparation> {
  const failure = (error: unknown) => statementFailure(error, options.timeoutMs);
  if (options.replicateCompatibilityLevel) {
    const problem = await replicateLevel(source, staging, failure);
    if (problem !== null) return refused('replicateCompatibilityLevel', problem);
  }
  let rows: SourceSqlUserRow[];
  try {
    rows = await source.query<SourceSqlUserRow>(SOURCE_SQL_USERS_SQL);
  } catch (error) {
    return refused('sourceConnectionString', `cannot read the source database's users: ${failure(error)}`);
  }
  const users = sqlUsersOf(rows);
  const unseen = await unseenPrincipals(source, users);
  const copied = users.flatMap((user) => (user.login === null ? [] : [{ ...user, login: user.login }]));
  if (copied.length === 0) return { problems: [], note: unseen.join(' ') };
  if ((await stagingEngineEdition(staging)) === AZURE_SQL_DATABASE_EDITION) {
    const notCreated = await createContainedUsers(staging, copied, failure);
    const created = copied.length - notCreated.length;
    return { problems: [], note: [...(created > 0 ? [REPLICATED_LOGINS_NOTE, AZURE_CONTAINED_USERS_NOTE] : []), ...notCreated, ...unseen].join(' ') };
  }
  try {
    for (const user of copied) {
      await staging.query(CREATE_LOGIN_SQL, { login: user.login, password: randomPassword() });
      await staging.query(CREATE_USER_SQL, { user: user.user, login: user.login, default_schema: user.defaultSchema });
      for (const role of user.roles) await staging.query(ADD_ROLE_MEMBER_SQL, { user: user.user, role });
    }
  } catch (error) {
    return refused(
      'stagingConnectionString',
      `cannot create the source database's SQL logins and users on the staging server: ${failure(error)}; the staging login needs ALTER ANY LOGIN and ALTER ANY USER`,
    );
  }
  return { problems: [], note: [REPLICATED_LOGINS_NOTE, ...unseen].join(' ') };
}

const AZURE_CONTAINED_USERS_NOTE =
  'The staging database is on Azure SQL Database, where logins can be created only in master: the source SQL users were created as contained database users with those random passwords.';

/** At most this many names in a sentence of the Note. */
const NAMES_IN_NOTE = 10;
const namesOf = (names: readonly string[]) =>
  names.length > NAMES_IN_NOTE ? `${names.slice(0, NAMES_IN_NOTE).join(', ')} and ${names.length - NAMES_IN_NOTE} more` : names.join(', ');

/**
 * Sentences for the Note about the users and logins the source login could not see, which were not copied
 * (SOURCE_SQL_USERS_SQL, SOURCE_SEES_USERS_SQL). A failed visibility check says nothing: the copy goes on.
 */
async function unseenPrincipals(source: TsqlDatabase, users: readonly SqlUser[]): Promise<string[]> {
  const sentences: string[] = [];
  const seesUsers = await source.query<{ sees_users: number }>(SOURCE_SEES_USERS_SQL).then(
    (answer) => answer[0]?.sees_users !== 0,
    () => true,
  );
  if (!seesUsers) {
    sentences.push(
      'The source login cannot see every user of the source database (it needs VIEW DEFINITION or ALTER ANY USER there): users it cannot see were not copied to the staging database.',
    );
  }
  const hidden = users.filter((user) => user.login === null).map((user) => user.user);
  if (hidden.length > 0) {
    sentences.push(
      `The logins of the source users ${namesOf(hidden)} are not visible to the source login (it needs VIEW ANY DEFINITION or ALTER ANY LOGIN on the source server): those users were not copied to the staging database.`,
    );
  }
  return sentences;
}

async function stagingEngineEdition(staging: TsqlDatabase): Promise<number | undefined> {
  try {
    const [server] = await staging.query<{ engine_edition: number | null }>(SERVER_MAJOR_VERSION_SQL);
    return server?.engine_edition ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Azure SQL Database: each user as a contained user with a random password and its fixed roles. A user that
 * cannot be created is named in the Note (a sentence per user), never a refusal: Create goes on.
 */
async function createContainedUsers(staging: TsqlDatabase, users: readonly (SqlUser & { login: string })[], failure: (error: unknown) => string): Promise<string[]> {
  const notCreated: string[] = [];
  for (const user of users) {
    try {
      await staging.query(CREATE_CONTAINED_USER_SQL, { user: user.user, password: randomPassword(), default_schema: user.defaultSchema });
      for (const role of user.roles) await staging.query(ADD_ROLE_MEMBER_SQL, { user: user.user, role });
    } catch (error) {
      notCreated.push(`The source user ${user.user} could not be created (or added to its roles) on the staging database: ${failure(error)}; the staging login needs ALTER ANY USER.`);
    }
  }
  return notCreated;
}

async function replicateLevel(source: TsqlDatabase, staging: TsqlDatabase, failure: (error: unknown) => string): Promise<string | null> {
  let level: number | undefined;
  let server: { major_version: number; engine_edition: number | null } | undefined;
  let current: number | undefined;
  try {
    [level] = (await source.query<{ compatibility_level: number }>(SOURCE_COMPATIBILITY_LEVEL_SQL)).map((row) => row.compatibility_level);
    [server] = await staging.query<{ major_version: number; engine_edition: number | null }>(SERVER_MAJOR_VERSION_SQL);
    [current] = (await staging.query<{ compatibility_level: number }>(SOURCE_COMPATIBILITY_LEVEL_SQL)).map((row) => row.compatibility_level);
  } catch (error) {
    return `cannot read the compatibility levels: ${failure(error)}`;
  }
  if (level === undefined || server === undefined) return 'cannot read the compatibility levels: the servers did not answer them';
  const problem = compatibilityLevelProblem(level, server.major_version, server.engine_edition ?? undefined);
  if (problem !== null || current === level) return problem;
  try {
    await staging.query(setCompatibilityLevelSql(level));
    return null;
  } catch (error) {
    return `cannot set compatibility level ${level} on the staging database: ${failure(error)}; the staging login needs ALTER on the database`;
  }
}
