import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestStack } from '@svc/system-testing';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';
import { openPostgresSource, openPostgresWarehouse } from './suite/postgres-fixture';

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
}

export const POSTGRES_TO_POSTGRES: EnginePair = {
  name: 'PostgreSQL → PostgreSQL',
  unavailable: null,
  canExpireChanges: true,
  sourceConnectionString: (stack) => stack.source.url,
  stagingConnectionString: (stack) => stack.staging.url,
  warehouse: (stack) => ({ url: 'postgres://127.0.0.1:5432', databaseName: stack.warehouse.name, username: 'postgres', password: 'unused-with-trust' }),
  openSource: (stack) => openPostgresSource(stack.source.url),
  openWarehouse: (stack) => openPostgresWarehouse(stack.warehouse.url),
};

interface PlannedEngine {
  name: string;
  /** The variable naming a live server of the engine. */
  serverVariable: string;
  /** Where its suite fixture comes from. */
  fixtureIssue: string;
}

const SQL_SERVER: PlannedEngine = { name: 'SQL Server', serverVariable: 'MSSQL_URL', fixtureIssue: 'issue 10' };
const REDSHIFT: PlannedEngine = { name: 'Redshift', serverVariable: 'REDSHIFT_URL', fixtureIssue: 'issue 11' };

/** A pair with an engine that has no suite fixture yet: listed, reported as not run with the reasons, never green. */
function plannedPair(source: PlannedEngine | null, warehouse: PlannedEngine | null, env: NodeJS.ProcessEnv = process.env): EnginePair {
  const engines = [source, warehouse].filter((engine): engine is PlannedEngine => engine !== null);
  const reasons = [
    ...engines.filter((engine) => !env[engine.serverVariable]).map((engine) => `${engine.serverVariable} is not set`),
    ...engines.map((engine) => `no ${engine.name} suite fixture yet (${engine.fixtureIssue})`),
  ];
  const name = `${source?.name ?? 'PostgreSQL'} → ${warehouse?.name ?? 'PostgreSQL'}`;
  const refuse = (): never => {
    throw new Error(`${name} does not run: ${reasons.join('; ')}`);
  };
  return { name, unavailable: reasons.join('; '), canExpireChanges: false, sourceConnectionString: refuse, stagingConnectionString: refuse, warehouse: refuse, openSource: refuse, openWarehouse: refuse };
}

/** Every pair the suites know, runnable or not: the specification's SQL Server → Redshift first among the planned ones. */
export const ENGINE_PAIRS: EnginePair[] = [POSTGRES_TO_POSTGRES, plannedPair(SQL_SERVER, REDSHIFT), plannedPair(SQL_SERVER, null), plannedPair(null, REDSHIFT)];

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
