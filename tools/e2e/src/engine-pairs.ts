import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tableKey } from '@svc/contracts';
import type { TestStack } from '@svc/system-testing';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';
import { openPostgresSource, openPostgresWarehouse } from './suite/postgres-fixture';
import { openSqlServerSource, sqlServerSchema, sqlServerSuiteDatabases, suiteDatabaseNames, withDatabase } from './suite/sqlserver-fixture';

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
  sourceConnectionString(stack: TestStack): string;
  stagingConnectionString(stack: TestStack): string;
  warehouse(stack: TestStack): { url: string; databaseName: string; username: string; password: string };
  openSource(stack: TestStack): Promise<SourceSession>;
  openWarehouse(stack: TestStack): Promise<WarehouseSession>;
  /** How the service names a source table of the suite (Describe, alerts, metrics): `[schema].[name]` in the source's schema. */
  tableName(schema: string, name: string): string;
  /** Environment the pair's services need besides the suite's own. */
  stackEnv?: Readonly<Record<string, string>>;
  /** Characters of the suite's longest text values, when the warehouse holds less than 1 MiB of 4-byte UTF-8 in one value. */
  bigTextCharacters?: number;
}

const postgresTableName = (schema: string, name: string) => tableKey({ schema, name });
const sqlServerTableName = (schema: string, name: string) => tableKey({ schema: sqlServerSchema(schema), name });

/** The stack's own PostgreSQL database as the warehouse. */
const POSTGRES_WAREHOUSE: Pick<EnginePair, 'warehouse' | 'openWarehouse'> = {
  warehouse: (stack) => ({ url: 'postgres://127.0.0.1:5432', databaseName: stack.warehouse.name, username: 'postgres', password: 'unused-with-trust' }),
  openWarehouse: (stack) => openPostgresWarehouse(stack.warehouse.url),
};

export const POSTGRES_TO_POSTGRES: EnginePair = {
  name: 'PostgreSQL → PostgreSQL',
  unavailable: null,
  canExpireChanges: true,
  sourceConnectionString: (stack) => stack.source.url,
  stagingConnectionString: (stack) => stack.staging.url,
  openSource: (stack) => openPostgresSource(stack.source.url),
  tableName: postgresTableName,
  ...POSTGRES_WAREHOUSE,
};

/**
 * The Redshift warehouse's own statements and file format, executed on the stack's PostgreSQL through the test
 * hook SVC_TEST_HOOK_REDSHIFT_ON_POSTGRES (VARBYTE as hex text, IDENTITY and GETDATE() spelled for PostgreSQL, the
 * files streamed by COPY FROM STDIN instead of COPY from S3). It is not a real Redshift, and its name says so.
 */
export const POSTGRES_TO_REDSHIFT_DIALECT: EnginePair = {
  name: 'PostgreSQL → Redshift dialect executed on PostgreSQL (not a real Redshift)',
  unavailable: null,
  canExpireChanges: true,
  sourceConnectionString: (stack) => stack.source.url,
  stagingConnectionString: (stack) => stack.staging.url,
  warehouse: (stack) => ({ url: 'redshift://127.0.0.1:5432', databaseName: stack.warehouse.name, username: 'postgres', password: 'unused-with-trust' }),
  openSource: (stack) => openPostgresSource(stack.source.url),
  openWarehouse: async (stack) => {
    const warehouse = await openPostgresWarehouse(stack.warehouse.url);
    // Redshift's GETDATE(): the statement's time in UTC, without a zone.
    await warehouse.query(`CREATE OR REPLACE FUNCTION public.getdate() RETURNS timestamp LANGUAGE sql STABLE AS $$ SELECT (statement_timestamp() AT TIME ZONE 'UTC')::timestamp $$`);
    return warehouse;
  },
  tableName: postgresTableName,
  stackEnv: { SVC_TEST_HOOK_REDSHIFT_ON_POSTGRES: '1' },
  // VARCHAR(65535) in bytes, with room for the suite's appends: 15000 four-byte characters.
  bigTextCharacters: 15000,
};

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

/**
 * SQL Server → PostgreSQL, on the server MSSQL_URL names (its source and staging databases are created
 * there, once per stack, before the first session connects) and the stack's PostgreSQL as the warehouse.
 */
export function sqlServerToPostgres(env: NodeJS.ProcessEnv = process.env): EnginePair {
  const name = 'SQL Server → PostgreSQL';
  const serverUrl = env['MSSQL_URL'];
  if (!serverUrl) return notRunnable(name, ['MSSQL_URL is not set'], sqlServerTableName);
  const created = new WeakMap<TestStack, Promise<unknown>>();
  const databasesOf = (stack: TestStack) => {
    let databases = created.get(stack);
    if (databases === undefined) {
      databases = sqlServerSuiteDatabases(serverUrl, runIdOf(stack)).catch((error: unknown) => {
        created.delete(stack);
        throw error;
      });
      created.set(stack, databases);
    }
    return databases;
  };
  const connectionStrings = (stack: TestStack) => {
    const names = suiteDatabaseNames(runIdOf(stack));
    return { source: withDatabase(serverUrl, names.source), staging: withDatabase(serverUrl, names.staging) };
  };
  return {
    name,
    unavailable: null,
    canExpireChanges: true,
    sourceConnectionString: (stack) => connectionStrings(stack).source,
    stagingConnectionString: (stack) => connectionStrings(stack).staging,
    openSource: async (stack) => {
      await databasesOf(stack);
      return openSqlServerSource(connectionStrings(stack).source);
    },
    tableName: sqlServerTableName,
    ...POSTGRES_WAREHOUSE,
  };
}

/** A pair that cannot run here: listed, reported as not run with the reasons, never green. */
function notRunnable(name: string, reasons: readonly string[], tableName: EnginePair['tableName']): EnginePair {
  const refuse = (): never => {
    throw new Error(`${name} does not run: ${reasons.join('; ')}`);
  };
  return { name, unavailable: reasons.join('; '), canExpireChanges: false, sourceConnectionString: refuse, stagingConnectionString: refuse, warehouse: refuse, openSource: refuse, openWarehouse: refuse, tableName };
}

interface SuiteEngine {
  name: string;
  /** The variable naming a live server of the engine. */
  serverVariable: string;
  /** Where its suite fixture comes from; null when it has one. */
  fixtureIssue: string | null;
}

const SQL_SERVER: SuiteEngine = { name: 'SQL Server', serverVariable: 'MSSQL_URL', fixtureIssue: null };
const REDSHIFT: SuiteEngine = { name: 'Redshift', serverVariable: 'REDSHIFT_URL', fixtureIssue: 'issue 11' };

/** A pair with an engine that has no suite fixture yet. */
function plannedPair(source: SuiteEngine | null, warehouse: SuiteEngine | null, env: NodeJS.ProcessEnv = process.env): EnginePair {
  const engines = [source, warehouse].filter((engine): engine is SuiteEngine => engine !== null);
  const reasons = [
    ...engines.filter((engine) => !env[engine.serverVariable]).map((engine) => `${engine.serverVariable} is not set`),
    ...engines.flatMap((engine) => (engine.fixtureIssue === null ? [] : [`no ${engine.name} suite fixture yet (${engine.fixtureIssue})`])),
  ];
  const name = `${source?.name ?? 'PostgreSQL'} → ${warehouse?.name ?? 'PostgreSQL'}`;
  return notRunnable(name, reasons, source === SQL_SERVER ? sqlServerTableName : postgresTableName);
}

/** Every pair the suites know, runnable or not: the specification's SQL Server → Redshift first among the others. */
export const ENGINE_PAIRS: EnginePair[] = [POSTGRES_TO_POSTGRES, plannedPair(SQL_SERVER, REDSHIFT), sqlServerToPostgres(), plannedPair(null, REDSHIFT), POSTGRES_TO_REDSHIFT_DIALECT];

/** Where the suites list which pairs ran and which did not (the CI summary prints it). */
export const PAIR_REPORT = join(__dirname, '..', '..', '..', 'tmp', 'engine-pairs.txt');

/**
 * Runs `suite` once per runnable pair (describe.each) and reports every pair that did not run, with why,
 * as a skipped test named after the reason and as a line in PAIR_REPORT and the test output: a pair without
 * its server is never silently green.
 */
export function describeEachPair(suite: string, body: (pair: EnginePair) => void, pairs: EnginePair[] = ENGINE_PAIRS): void {
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
