import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tableKey } from '@svc/contracts';
import { ENGINES, type EngineName } from '@svc/engine-list';
import type { EngineModule } from '@svc/engines';
import type { TestStack } from '@svc/system-testing';
import {
  MYSQL_SOURCE_LOSSES,
  POSTGRES_SOURCE_LOSSES,
  POSTGRES_WAREHOUSE_LOSSES,
  REDSHIFT_DOUBLE_WAREHOUSE_LOSSES,
  REDSHIFT_WAREHOUSE_LOSSES,
  SQL_SERVER_SOURCE_LOSSES,
  type SourceLosses,
  type WarehouseLosses,
} from './suite/declared-losses';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';
import { SuiteMariaDbs } from './suite/mysql-fixture';
import { openPostgresSource, openPostgresWarehouse } from './suite/postgres-fixture';
import { createRedshiftSuiteDatabase, openRedshiftWarehouse, redshiftStoredName, redshiftSuiteSettings, type RedshiftSuiteSettings } from './suite/redshift-fixture';
import { openSqlServerSource, sqlServerSchema, sqlServerSuiteDatabases, suiteDatabaseNames, withDatabase } from './suite/sqlserver-fixture';
import { modelConnectionString, openSqlServerModelSource } from './suite/sqlserver-model-fixture';
import { SQLSERVER_ON_POSTGRES_HOOK } from '@svc/sqlserver/on-postgres';
import { TEST_POSTGRES_URL, logicalPostgresUrl, walLevelOf } from '@svc/testing';

export type { SourceSession, WarehouseSession } from './suite/engine-fixture';

/**
 * What the generic suites need of an engine pair: the connection fields of a Create request, and sessions
 * on the source (to create tables and write the workload) and the warehouse (to read it back), both
 * through the engine fixtures, so that every suite runs unchanged for every pair.
 */
export interface EnginePair {
  name: string;
  /** Why the pair cannot run here; null when it runs. */
  unavailable: string | null;
  /** Whether the source session can purge a table's changes on demand (SourceSession.expireChanges). */
  canExpireChanges: boolean;
  /** Whether RepairReplication reseeds a differing table instead of applying its keys again (a source without SourceChecksums.markChanged). */
  repairsByReseed: boolean;
  sourceConnectionString(stack: TestStack): string;
  stagingConnectionString(stack: TestStack): string;
  /** Warehouse fields of a Create; the S3 ones replace the suite's local S3 server when the warehouse cannot read it. */
  warehouse(stack: TestStack): WarehouseFields;
  openSource(stack: TestStack): Promise<SourceSession>;
  openWarehouse(stack: TestStack): Promise<WarehouseSession>;
  /** How the service names a source table of the suite (Describe, alerts, metrics): `[schema].[name]` in the source's schema. */
  tableName(schema: string, name: string): string;
  /** Environment the pair's services need besides the suite's own (the source's and the warehouse's). */
  stackEnv?: Readonly<Record<string, string>>;
  /** Environment the source's side needs (merged into stackEnv). */
  sourceEnv?: Readonly<Record<string, string>>;
  /** Characters of the suite's longest text values, when the warehouse holds less than 1 MiB of 4-byte UTF-8 in one value. */
  bigTextCharacters?: number;
  /** The server the stack's source database is made on (TestStackOptions.sourceServer); the test server when absent. */
  sourceServer?: () => Promise<string>;
  /**
   * The staging table of a suite table as PostgreSQL names it, when staging is a database of this machine's PostgreSQL
   * (PostgreSQL staging, and the model of SQL Server): a test session can then hold staging's writes with a table lock.
   */
  stagingTableOnPostgres?: (schema: string, name: string) => string;
  /**
   * Whether the suite may cut staging's sessions (pg_terminate_backend) and expect staging to apply again by itself:
   * PostgreSQL staging. Not the model of SQL Server: its mssql-shaped pool does not fail a request whose session was
   * cut as the driver fails one on a KILLed session (seen: the stager's apply hung), so the suite would test the double.
   */
  stagingSessionsCanBeCut?: boolean;
  /** What the source engine cannot hold as the suite writes it (suite/declared-losses.ts). */
  sourceLosses: SourceLosses;
  /** What the warehouse engine does not keep as the source holds it (suite/declared-losses.ts). */
  warehouseLosses: WarehouseLosses;
}

export interface WarehouseFields {
  url: string;
  databaseName: string;
  username: string;
  password: string;
  accessKey?: string;
  secretKey?: string;
  bucketName?: string;
  regionEndpoint?: string;
}

const postgresTableName = (schema: string, name: string) => tableKey({ schema, name });
const sqlServerTableName = (schema: string, name: string) => tableKey({ schema: sqlServerSchema(schema), name });
const quotedOnPostgres = (schema: string, name: string) => `"${schema.replace(/"/g, '""')}"."${name.replace(/"/g, '""')}"`;

type SourceParts = Pick<
  EnginePair,
  | 'canExpireChanges'
  | 'repairsByReseed'
  | 'sourceConnectionString'
  | 'stagingConnectionString'
  | 'openSource'
  | 'tableName'
  | 'sourceLosses'
  | 'sourceEnv'
  | 'sourceServer'
  | 'stagingTableOnPostgres'
  | 'stagingSessionsCanBeCut'
>;
type WarehouseParts = Pick<EnginePair, 'warehouse' | 'openWarehouse' | 'stackEnv' | 'bigTextCharacters' | 'warehouseLosses'>;
type Parts<T> = { parts: T } | { reasons: string[] };

/**
 * The stack's own PostgreSQL databases as source and staging, the source on a server with wal_level = logical (the test
 * server when it is so configured, else a private one: logicalPostgresUrl), so that its changes are read from the log.
 */
const POSTGRES_SOURCE_ON_TEST_SERVER: SourceParts = {
  canExpireChanges: true,
  repairsByReseed: false,
  sourceConnectionString: (stack) => stack.source.url,
  stagingConnectionString: (stack) => stack.staging.url,
  openSource: (stack) => openPostgresSource(stack.source.url),
  tableName: postgresTableName,
  stagingTableOnPostgres: quotedOnPostgres,
  stagingSessionsCanBeCut: true,
  sourceLosses: POSTGRES_SOURCE_LOSSES,
};
const POSTGRES_SOURCE: SourceParts = { ...POSTGRES_SOURCE_ON_TEST_SERVER, sourceServer: logicalPostgresUrl };

/** The source side of the trigger fallback's pairs' names. */
export const TRIGGER_PAIR_PREFIX = 'PostgreSQL captured by triggers (wal_level replica)';

/**
 * The trigger fallback: the source on the test server, whose wal_level must not be logical (the machine's default,
 * replica), where Create says so in its Note and capture is done by triggers.
 */
const POSTGRES_TRIGGER_SOURCE: SourceParts = {
  ...POSTGRES_SOURCE_ON_TEST_SERVER,
  openSource: async (stack) => {
    if ((await walLevelOf(stack.source.url)) === 'logical') throw new Error('the trigger fallback pair needs a test server (TEST_POSTGRES_URL) with wal_level replica');
    return openPostgresSource(stack.source.url);
  },
};


/** The stack's own PostgreSQL database as the warehouse. */
const POSTGRES_WAREHOUSE: WarehouseParts = {
  warehouse: (stack) => ({ url: 'postgres://127.0.0.1:5432', databaseName: stack.warehouse.name, username: 'postgres', password: 'unused-with-trust' }),
  openWarehouse: (stack) => openPostgresWarehouse(stack.warehouse.url),
  warehouseLosses: POSTGRES_WAREHOUSE_LOSSES,
};

/**
 * The Redshift warehouse's own statements and file format, executed on the stack's PostgreSQL through the test
 * hook SVC_TEST_HOOK_REDSHIFT_ON_POSTGRES (VARBYTE as hex text, IDENTITY and SYSDATE spelled for PostgreSQL, the
 * files streamed by COPY FROM STDIN instead of COPY from S3), whose sessions fold quoted names to lower case and
 * compare text ignoring trailing blanks as Redshift does (libs/redshift/warehouse redshift-on-postgres.ts): the
 * fixture reads the tables under the folded names. It is not a real Redshift, and its name says so.
 */
const REDSHIFT_DIALECT_WAREHOUSE: WarehouseParts = {
  // The seed's bare host:port form, which names Redshift.
  warehouse: (stack) => ({ url: '127.0.0.1:5432', databaseName: stack.warehouse.name, username: 'postgres', password: 'unused-with-trust' }),
  openWarehouse: (stack) => openPostgresWarehouse(stack.warehouse.url, { storedName: redshiftStoredName }),
  stackEnv: { SVC_TEST_HOOK_REDSHIFT_ON_POSTGRES: '1' },
  // VARCHAR(65535) in bytes, with room for the suite's appends: 15000 four-byte characters.
  bigTextCharacters: 15000,
  warehouseLosses: REDSHIFT_DOUBLE_WAREHOUSE_LOSSES,
};

/**
 * SQL Server's source and staging statements executed on the stack's PostgreSQL databases through the test hook
 * SVC_TEST_HOOK_SQLSERVER_ON_POSTGRES: the PostgreSQL model of SQL Server (libs/sqlserver/on-postgres) serves every
 * SQL Server connection of the services, Change Tracking included, translating their T-SQL. It is not a real SQL
 * Server, and its name says so; what only a live one confirms is listed in docs/ENGINES.md.
 */
const SQLSERVER_MODEL_SOURCE: SourceParts = {
  canExpireChanges: true,
  // Change Tracking records a change only when the row is written, and a repair never writes a user's rows.
  repairsByReseed: true,
  sourceConnectionString: (stack) => modelConnectionString(stack.source.name),
  stagingConnectionString: (stack) => modelConnectionString(stack.staging.name),
  openSource: (stack) => openSqlServerModelSource(stack.source.url),
  tableName: sqlServerTableName,
  stagingTableOnPostgres: (schema, name) => quotedOnPostgres(sqlServerSchema(schema), name),
  sourceLosses: SQL_SERVER_SOURCE_LOSSES,
  sourceEnv: { [SQLSERVER_ON_POSTGRES_HOOK]: TEST_POSTGRES_URL },
};

/** Each stack's MariaDB server (suite/mysql-fixture.ts), started by its first source session. */
const suiteMariaDbs = new SuiteMariaDbs<TestStack>();

/**
 * MariaDB as the source, on a server of the stack's own (a private mariadbd: the binary log on, ROW, FULL images), every
 * suite schema a database of it; the connection string names no database, so the service reads them all. Staging is a
 * second private mariadbd of the stack's (staging keeps the source's database names).
 */
const MARIADB_SOURCE: SourceParts = {
  canExpireChanges: true,
  // No SourceChecksums yet: a repair reseeds.
  repairsByReseed: true,
  sourceConnectionString: (stack) => suiteMariaDbs.connectionString(stack),
  stagingConnectionString: (stack) => suiteMariaDbs.stagingConnectionString(stack),
  openSource: (stack) => suiteMariaDbs.openSession(stack),
  tableName: postgresTableName,
  sourceLosses: MYSQL_SOURCE_LOSSES,
};

/**
 * MySQL itself (not MariaDB) on the server MYSQL_URL would name. The suites' schemas are databases of a server of the
 * stack's own, which a shared live server cannot give every stack, so this pair is listed and reported as not run.
 */
function mysqlServerSource(env: NodeJS.ProcessEnv): Parts<SourceParts> {
  if (!env['MYSQL_URL']) return { reasons: ['MYSQL_URL is not set'] };
  return { reasons: ['a pair on a live MySQL server is not written yet (the suites need a server per stack); the MariaDB pairs run here'] };
}

/** The name MariaDB source pairs start with. */
export const MARIADB_PAIR_PREFIX = 'MariaDB';

/** One id per process, and one per stack within it: every stack gets source and staging databases of its own on the shared server. */
const PROCESS_RUN_ID = `${Date.now().toString(36)}${process.pid.toString(36)}`;
const stackRunIds = new WeakMap<TestStack, string>();
let stacksSeen = 0;

function runIdOf(stack: TestStack): string {
  let runId = stackRunIds.get(stack);
  if (runId === undefined) {
    stacksSeen += 1;
    runId = `${PROCESS_RUN_ID}_${stacksSeen}`;
    stackRunIds.set(stack, runId);
  }
  return runId;
}

/** Creates what `create` makes once per stack, before the first session needs it; a failure is tried again next time. */
function oncePerStack<T>(create: (stack: TestStack) => Promise<T>): (stack: TestStack) => Promise<T> {
  const created = new WeakMap<TestStack, Promise<T>>();
  return (stack) => {
    let made = created.get(stack);
    if (made === undefined) {
      made = create(stack).catch((error: unknown) => {
        created.delete(stack);
        throw error;
      });
      created.set(stack, made);
    }
    return made;
  };
}

/** SQL Server as source and staging, on the server MSSQL_URL names (its databases are created there, once per stack). */
function sqlServerSource(env: NodeJS.ProcessEnv): Parts<SourceParts> {
  const serverUrl = env['MSSQL_URL'];
  if (!serverUrl) return { reasons: ['MSSQL_URL is not set'] };
  const databasesOf = oncePerStack((stack) => sqlServerSuiteDatabases(serverUrl, runIdOf(stack)));
  const connectionStrings = (stack: TestStack) => {
    const names = suiteDatabaseNames(runIdOf(stack));
    return { source: withDatabase(serverUrl, names.source), staging: withDatabase(serverUrl, names.staging) };
  };
  return {
    parts: {
      canExpireChanges: true,
      // Change Tracking records a change only when the row is written, and a repair never writes a user's rows.
      repairsByReseed: true,
      sourceConnectionString: (stack) => connectionStrings(stack).source,
      stagingConnectionString: (stack) => connectionStrings(stack).staging,
      openSource: async (stack) => {
        await databasesOf(stack);
        return openSqlServerSource(connectionStrings(stack).source);
      },
      tableName: sqlServerTableName,
      sourceLosses: SQL_SERVER_SOURCE_LOSSES,
    },
  };
}

/**
 * A real Redshift cluster (REDSHIFT_URL and the bucket variables of REDSHIFT_SUITE_VARIABLES): one database per stack,
 * `svc_suite_<run>_warehouse`, left on the cluster for reading after the run. The services write batch files to the
 * real bucket (no local S3 endpoint) and COPY reads them with the same keys.
 */
function redshiftWarehouse(env: NodeJS.ProcessEnv): Parts<WarehouseParts> {
  const settings = redshiftSuiteSettings(env);
  if ('missing' in settings) return { reasons: settings.missing.map((name) => `${name} is not set`) };
  const databaseOf = (stack: TestStack) => `svc_suite_${runIdOf(stack)}_warehouse`;
  const created = oncePerStack((stack) => createRedshiftSuiteDatabase(settings, databaseOf(stack)));
  return { parts: liveRedshiftParts(settings, databaseOf, created) };
}

function liveRedshiftParts(settings: RedshiftSuiteSettings, databaseOf: (stack: TestStack) => string, created: (stack: TestStack) => Promise<void>): WarehouseParts {
  return {
    warehouse: (stack) => ({
      url: `redshift://${settings.host}:${settings.port}`,
      databaseName: databaseOf(stack),
      username: settings.username,
      password: settings.password,
      accessKey: settings.accessKeyId,
      secretKey: settings.secretAccessKey,
      bucketName: settings.bucket,
      regionEndpoint: settings.region,
    }),
    openWarehouse: async (stack) => {
      await created(stack);
      return openRedshiftWarehouse(settings, databaseOf(stack));
    },
    stackEnv: { S3_ENDPOINT: '', S3_ACCESS_KEY_ID: '', S3_SECRET_ACCESS_KEY: '', S3_ALLOW_BUCKET_CREATION: 'false' },
    bigTextCharacters: 15000,
    warehouseLosses: REDSHIFT_WAREHOUSE_LOSSES,
  };
}

/** One way the suites hold a warehouse engine: the name pairs give it, and its parts (or why it cannot run here). */
interface WarehouseVariant {
  /** The warehouse's side of a pair's name; the engine's display name when absent. */
  label?: string;
  parts(env: NodeJS.ProcessEnv): Parts<WarehouseParts>;
  /** The source engines it is paired with, when not every one. */
  onlyFrom?: readonly EngineName[];
}

/** One way the suites hold a source engine (and its staging), as WarehouseVariant does a warehouse. */
interface SourceVariant {
  /** The source's side of a pair's name; the engine's display name when absent. */
  label?: string;
  parts(env: NodeJS.ProcessEnv): Parts<SourceParts>;
}

/** What the suites hold of an engine, for each role it plays. */
interface SuiteFixture {
  sources?: readonly SourceVariant[];
  /** How the service names a source table of the engine, also for a pair that does not run; `[schema].[name]` when absent. */
  tableName?: EnginePair['tableName'];
  warehouses?: readonly WarehouseVariant[];
}

/**
 * Each engine's suite fixture (tools/e2e/src/suite/<engine>-fixture.ts), by the engine list's names. An engine of
 * the list without one is still paired by its roles, and its pairs are reported as not run, with this as the reason.
 */
const SUITE_FIXTURES: Partial<Record<EngineName, SuiteFixture>> = {
  postgres: {
    sources: [
      { parts: () => ({ parts: POSTGRES_SOURCE }) },
      { label: TRIGGER_PAIR_PREFIX, parts: () => ({ parts: POSTGRES_TRIGGER_SOURCE }) },
    ],
    warehouses: [{ parts: () => ({ parts: POSTGRES_WAREHOUSE }) }],
  },
  sqlserver: {
    sources: [{ parts: sqlServerSource }, { label: 'SQL Server modelled on PostgreSQL (not a real SQL Server)', parts: () => ({ parts: SQLSERVER_MODEL_SOURCE }) }],
    tableName: sqlServerTableName,
  },
  mysql: {
    sources: [{ parts: mysqlServerSource }, { label: MARIADB_PAIR_PREFIX, parts: () => ({ parts: MARIADB_SOURCE }) }],
  },
  redshift: {
    warehouses: [
      { parts: redshiftWarehouse },
      { label: 'Redshift dialect executed on PostgreSQL (not a real Redshift)', parts: () => ({ parts: REDSHIFT_DIALECT_WAREHOUSE }) },
    ],
  },
};

const noFixture = (engine: EngineModule): { reasons: string[] } => ({ reasons: [`${engine.displayName} has no suite fixture (SUITE_FIXTURES in tools/e2e/src/engine-pairs.ts)`] });
const fixtureOf = (engine: EngineModule): SuiteFixture | undefined => SUITE_FIXTURES[engine.name as EngineName];

/** A pair of a source and a warehouse engine: runnable when both are, else reported with every reason. */
function pairOf(name: string, source: Parts<SourceParts>, warehouse: Parts<WarehouseParts>, tableName: EnginePair['tableName']): EnginePair {
  const reasons = [...('reasons' in source ? source.reasons : []), ...('reasons' in warehouse ? warehouse.reasons : [])];
  if ('reasons' in source || 'reasons' in warehouse) return notRunnable(name, reasons, tableName);
  const stackEnv = { ...source.parts.sourceEnv, ...warehouse.parts.stackEnv };
  return { name, unavailable: null, ...source.parts, ...warehouse.parts, ...(Object.keys(stackEnv).length > 0 && { stackEnv }) };
}

/**
 * Every pair the engine list declares: each source engine with each warehouse engine (the cross product of their
 * roles), a warehouse held in several ways once per way, runnable or not.
 */
export function enginePairs(env: NodeJS.ProcessEnv = process.env, engines: readonly EngineModule[] = ENGINES): EnginePair[] {
  const playing = (role: 'source' | 'warehouse') => engines.filter((engine) => engine.roles.includes(role));
  return playing('source').flatMap((source) => {
    const sourceVariants = fixtureOf(source)?.sources ?? [{ parts: () => noFixture(source) }];
    const tableName = fixtureOf(source)?.tableName ?? postgresTableName;
    return sourceVariants.flatMap((sourceVariant) => {
      const sourceParts = sourceVariant.parts(env);
      return playing('warehouse').flatMap((warehouse) => {
        const variants = fixtureOf(warehouse)?.warehouses ?? [{ parts: () => noFixture(warehouse) }];
        return variants
          .filter((variant) => variant.onlyFrom === undefined || variant.onlyFrom.includes(source.name as EngineName))
          .map((variant) =>
            pairOf(`${sourceVariant.label ?? source.displayName} → ${variant.label ?? warehouse.displayName}`, sourceParts, variant.parts(env), tableName),
          );
      });
    });
  });
}

/** The pair of that name among `pairs` (enginePairs(env) by default); throws for a name no pair has. */
export function enginePairNamed(name: string, pairs: readonly EnginePair[] = enginePairs()): EnginePair {
  const pair = pairs.find((candidate) => candidate.name === name);
  if (pair === undefined) throw new Error(`no engine pair is named ${name}`);
  return pair;
}

/** The pair, reported as not run by a suite for `reason` (it runs in other suites). */
export function leftOut(pair: EnginePair, reason: string): EnginePair {
  return pair.unavailable === null ? notRunnable(pair.name, [reason], (schema, name) => pair.tableName(schema, name)) : pair;
}

/** A pair that cannot run here: listed, reported as not run with the reasons, never green. */
function notRunnable(name: string, reasons: readonly string[], tableName: EnginePair['tableName']): EnginePair {
  // An engine without a fixture that plays both roles of its pair is one reason, said once.
  const why = [...new Set(reasons)].join('; ');
  const refuse = (): never => {
    throw new Error(`${name} does not run: ${why}`);
  };
  return {
    name,
    unavailable: why,
    canExpireChanges: false,
    repairsByReseed: false,
    sourceConnectionString: refuse,
    stagingConnectionString: refuse,
    warehouse: refuse,
    openSource: refuse,
    openWarehouse: refuse,
    tableName,
    sourceLosses: POSTGRES_SOURCE_LOSSES,
    warehouseLosses: POSTGRES_WAREHOUSE_LOSSES,
  };
}

/**
 * The pairs ENGINE_PAIRS names (a comma-separated list of words each found in a pair's name, case-insensitive:
 * `ENGINE_PAIRS='dialect'` runs the Redshift dialect pair only); every pair when unset. A pair it leaves out is
 * reported as not run, with the variable as the reason.
 */
export function selectedPairs(pairs: readonly EnginePair[], env: NodeJS.ProcessEnv = process.env): EnginePair[] {
  const wanted = (env['ENGINE_PAIRS'] ?? '')
    .split(',')
    .map((word) => word.trim().toLowerCase())
    .filter((word) => word !== '');
  if (wanted.length === 0) return [...pairs];
  return pairs.map((pair) => {
    if (wanted.some((word) => pair.name.toLowerCase().includes(word))) return pair;
    const reasons = [`left out by ENGINE_PAIRS=${env['ENGINE_PAIRS'] ?? ''}`, ...(pair.unavailable === null ? [] : [pair.unavailable])];
    return notRunnable(pair.name, reasons, (schema, name) => pair.tableName(schema, name));
  });
}

/** Every pair the suites know, runnable or not, as the engine list's roles make them. */
export const ENGINE_PAIRS: EnginePair[] = enginePairs();

/** The stack's PostgreSQL databases as source, staging and warehouse: the pair every live suite runs on. */
export const POSTGRES_TO_POSTGRES: EnginePair = enginePairNamed('PostgreSQL → PostgreSQL', ENGINE_PAIRS);

/** PostgreSQL → the Redshift dialect executed on the stack's PostgreSQL (REDSHIFT_DIALECT_WAREHOUSE). */
export const POSTGRES_TO_REDSHIFT_DIALECT: EnginePair = enginePairNamed('PostgreSQL → Redshift dialect executed on PostgreSQL (not a real Redshift)', ENGINE_PAIRS);

/** Where the suites list which pairs ran and which did not (the CI summary prints it). */
export const PAIR_REPORT = join(__dirname, '..', '..', '..', 'tmp', 'engine-pairs.txt');

/**
 * Runs `suite` once per runnable pair (describe.each) and reports every pair that did not run, with why,
 * as a skipped test named after the reason and as a line in PAIR_REPORT and the test output: a pair without
 * its server is never silently green.
 */
export function describeEachPair(suite: string, body: (pair: EnginePair) => void, pairs: EnginePair[] = selectedPairs(ENGINE_PAIRS)): void {
  const ran = pairs.filter((pair) => pair.unavailable === null);
  const notRun = pairs.filter((pair) => pair.unavailable !== null);
  const lines = [
    `${suite}: ran ${ran.map((pair) => pair.name).join(', ') || 'no pair'}`,
    ...notRun.map((pair) => `${suite}: did not run ${pair.name}: ${pair.unavailable ?? ''}`),
  ];
  mkdirSync(join(PAIR_REPORT, '..'), { recursive: true });
  appendFileSync(PAIR_REPORT, `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (ran.length > 0) describe.each(ran)(`${suite}: $name`, body);
  for (const pair of notRun) {
    describe(`${suite}: ${pair.name}`, () => {
      it.skip(`did not run: ${pair.unavailable ?? ''}`, () => undefined);
    });
  }
}
