import { compatibilityLevelProblem, SERVER_MAJOR_VERSION_SQL, setCompatibilityLevelSql, SOURCE_COMPATIBILITY_LEVEL_SQL } from './compatibility-level';
import { ADD_ROLE_MEMBER_SQL, CREATE_LOGIN_SQL, CREATE_USER_SQL, randomPassword, REPLICATED_LOGINS_NOTE, SOURCE_SQL_USERS_SQL, sqlUsersOf, type SourceSqlUserRow } from './replicated-logins';
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
  if (users.length === 0) return { problems: [], note: '' };
  try {
    for (const user of users) {
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
  return { problems: [], note: REPLICATED_LOGINS_NOTE };
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
