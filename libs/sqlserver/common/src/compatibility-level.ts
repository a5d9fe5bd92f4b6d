/**
 * Staging.ReplicateCompatibilityLevel (seed §2.1): the staging database gets the source database's
 * compatibility level. A level is only valid on servers that support it, which depends on the server's
 * major version; the seed lists 100, 110, 120 for one generation and adds 130 for the next (SQL Server 2014
 * and 2016). Newer servers take the levels they support, so a source on SQL Server 2019 keeps its 150.
 */
export const SOURCE_COMPATIBILITY_LEVEL_SQL = 'SELECT CONVERT(int, compatibility_level) AS compatibility_level FROM sys.databases WHERE database_id = DB_ID()';

/**
 * The server's major version from ProductVersion (`13.0.5026.0` → 13), which every version has (ProductMajorVersion
 * came with 2012), and its EngineEdition: Azure SQL reports ProductVersion 12.0.x whatever it supports, so the
 * edition comes first (https://learn.microsoft.com/en-us/sql/t-sql/functions/serverproperty-transact-sql).
 */
export const SERVER_MAJOR_VERSION_SQL =
  "SELECT CONVERT(int, PARSENAME(CONVERT(varchar(32), SERVERPROPERTY('ProductVersion')), 4)) AS major_version, CONVERT(int, SERVERPROPERTY('EngineEdition')) AS engine_edition";

/** SERVERPROPERTY('EngineEdition') of Azure SQL Database (https://learn.microsoft.com/sql/t-sql/functions/serverproperty-transact-sql). */
export const AZURE_SQL_DATABASE_EDITION = 5;

/**
 * SERVERPROPERTY('EngineEdition') of the Azure services and the levels they take, which follow no version number
 * (https://learn.microsoft.com/en-us/sql/t-sql/statements/alter-database-transact-sql-compatibility-level).
 */
const AZURE_EDITIONS: ReadonlyMap<number, { name: string; levels: readonly number[] }> = new Map([
  [AZURE_SQL_DATABASE_EDITION, { name: 'Azure SQL Database', levels: [100, 110, 120, 130, 140, 150, 160, 170] }],
  [8, { name: 'Azure SQL Managed Instance', levels: [100, 110, 120, 130, 140, 150, 160] }],
]);

/** The compatibility levels a server of each major version accepts (ALTER DATABASE … SET COMPATIBILITY_LEVEL). */
const LEVELS_BY_MAJOR_VERSION: ReadonlyMap<number, readonly number[]> = new Map([
  [10, [80, 90, 100]],
  [11, [90, 100, 110]],
  [12, [100, 110, 120]],
  [13, [100, 110, 120, 130]],
  [14, [100, 110, 120, 130, 140]],
  [15, [100, 110, 120, 130, 140, 150]],
  [16, [100, 110, 120, 130, 140, 150, 160]],
]);

const PRODUCT_NAMES: ReadonlyMap<number, string> = new Map([
  [10, 'SQL Server 2008'],
  [11, 'SQL Server 2012'],
  [12, 'SQL Server 2014'],
  [13, 'SQL Server 2016'],
  [14, 'SQL Server 2017'],
  [15, 'SQL Server 2019'],
  [16, 'SQL Server 2022'],
]);

/** The levels a staging server of this major version takes; a version newer than this table takes what the newest known one does and its own. */
export function compatibilityLevelsOf(majorVersion: number): readonly number[] {
  const known = LEVELS_BY_MAJOR_VERSION.get(majorVersion);
  if (known) return known;
  const newest = Math.max(...LEVELS_BY_MAJOR_VERSION.keys());
  if (majorVersion > newest) return [...(LEVELS_BY_MAJOR_VERSION.get(newest) ?? []), majorVersion * 10];
  return [];
}

/** Why the source's level cannot be set on the staging server, for a `{Staging\ReplicateCompatibilityLevel}` field error; null when it can. */
export function compatibilityLevelProblem(sourceLevel: number, stagingMajorVersion: number, stagingEngineEdition?: number): string | null {
  const azure = stagingEngineEdition === undefined ? undefined : AZURE_EDITIONS.get(stagingEngineEdition);
  const levels = azure?.levels ?? compatibilityLevelsOf(stagingMajorVersion);
  if (levels.includes(sourceLevel)) return null;
  const server = azure?.name ?? PRODUCT_NAMES.get(stagingMajorVersion) ?? `SQL Server version ${stagingMajorVersion}`;
  const takes = levels.length ? `takes ${levels.join(', ')}` : 'is not a version the service knows';
  return `the source database's compatibility level ${sourceLevel} cannot be set on the staging server (${server} ${takes}); upgrade the staging server or set ReplicateCompatibilityLevel to false`;
}

/** The statement that sets it; the level is checked against the known ones first (it is spliced into T-SQL). */
export function setCompatibilityLevelSql(level: number): string {
  const known = new Set([...LEVELS_BY_MAJOR_VERSION.values()].flat());
  if (!Number.isInteger(level) || (!known.has(level) && !(level > 160 && level % 10 === 0 && level < 1000))) {
    throw new RangeError(`${level} is not a SQL Server compatibility level`);
  }
  return `ALTER DATABASE CURRENT SET COMPATIBILITY_LEVEL = ${level}`;
}
