import type { Client, Pool } from 'pg';
import type { ReplicationDescription, ReplicationSummary } from '@svc/contracts';
import { readS3Credentials } from '@svc/testing';
import { DEMO_DATABASES, DEMO_WAREHOUSE_SCHEMA, type DemoDatabases, type DemoSettings } from './demo-settings';
import { recreateDemoDatabases } from './demo-databases';
import { failedTable, progressLine, seconds, seedingFinished, textTable } from './progress';
import { demoCreateRequest, type BucketKey } from './replication-request';
import { SAMPLE_CHANGES, SAMPLE_SOURCE_SQL, SAMPLE_TABLES, TRACKED_TABLES, type SampleTable } from './sample-source';
import type { SignedApi } from './signed-api';
import { digestOf, sameDigest, warehouseDigestOf, type Digest } from './table-digest';

const SEED_DEADLINE_MS = 10 * 60_000;
const CATCH_UP_DEADLINE_MS = 3 * 60_000;
/** The reseeding schedule runs every minute: allow two runs and the reseed itself. */
const RESEED_DEADLINE_MS = 3 * 60_000;

export function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * The name a demo gives the replication it creates (the seed lets a name be set only by Alter, so it is set right
 * after Create): the mark by which a later run knows its own replications from anyone else's.
 */
export function demoReplicationName(databases: DemoDatabases, demo: 'npm run demo' | 'npm start'): string {
  return `${databases.source} (made by ${demo})`;
}

/**
 * Step 1: replications an earlier demo run made go first, since they point at the databases about to be dropped.
 * Only those carry the demo's name; any other replication is left alone, and one named after the demo's source (a
 * replication of the README's examples, or of a demo run before names were marked) is pointed out.
 */
export async function resetDemo(api: SignedApi, admin: Client, replications: ReplicationSummary[], databases: DemoDatabases = DEMO_DATABASES): Promise<void> {
  const mark = demoReplicationName(databases, 'npm run demo');
  for (const previous of replications.filter((replication) => replication.replicationName === mark)) {
    say(`  deleting replication ${previous.replicationId} of an earlier demo run`);
    await api.call('DeleteWarehouseReplication', { replicationId: previous.replicationId });
  }
  for (const other of replications.filter((replication) => replication.replicationName === databases.source)) {
    say(`  leaving replication ${other.replicationId} (${other.replicationName}) alone: the demo did not make it, but it reads ${databases.source},`);
    say(`    which is about to be recreated; if it is yours to drop: npm run svc -- delete --replication-id ${other.replicationId}`);
  }
  await recreateDemoDatabases(admin, databases);
  say(`  created ${Object.values(databases).join(', ')}`);
}

/** Step 2. */
export async function createSampleSource(source: Pool): Promise<void> {
  await source.query(SAMPLE_SOURCE_SQL);
  // Statistics give the service its row estimates (Describe's rowsEstimated).
  await source.query('ANALYZE');
  for (const table of SAMPLE_TABLES) {
    const { rows } = await source.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table.source}`);
    say(`  ${table.name.padEnd(22)} ${String(rows[0]?.n ?? 0).padStart(6)} rows${table.keyed ? '' : '  (no primary key)'}`);
  }
}

/** The account of the S3 server `npm start` embeds, from the file it keeps it in (only the user can read it). */
export function embeddedBucketKey(settings: Pick<DemoSettings, 'bucketCredentialsFile'>): BucketKey {
  const account = readS3Credentials(settings.bucketCredentialsFile);
  return { accessKey: account.accessKeyId, secretKey: account.secretAccessKey };
}

/** Step 3: Create, then the demo's name (its mark) by Alter. */
export async function createReplication(
  api: SignedApi,
  postgresUrl: string,
  bucketKey: BucketKey,
  replicationName: string,
  databases: DemoDatabases = DEMO_DATABASES,
): Promise<string> {
  const runLabel = `svc-demo-${Date.now().toString(36)}`;
  const created = await api.call('CreateWarehouseReplication', demoCreateRequest(postgresUrl, runLabel, bucketKey, databases));
  await api.call('AlterWarehouseReplication', { replicationId: created.replicationId, replicationName });
  say(`  ReplicationId ${created.replicationId}, Status ${created.status}, ReplicationName '${replicationName}'`);
  return created.replicationId;
}

/** Step 4: Describe every second until every table is Tracking or Untracked. */
export async function waitForSeeding(api: SignedApi, replicationId: string): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < SEED_DEADLINE_MS) {
    const described = await describe(api, replicationId);
    say(progressLine(Date.now() - started, described.tables));
    const failed = failedTable(described.tables);
    if (described.status === 'Failed' || failed) {
      throw new Error(`seeding failed: ${failed?.lastError ?? described.lastError ?? 'no error recorded'}`);
    }
    if (seedingFinished(described.tables, SAMPLE_TABLES.length)) {
      say(`  seeded in ${seconds(Date.now() - started)}`);
      return;
    }
    await sleep(1000);
  }
  throw new Error(`the tables were not seeded within ${SEED_DEADLINE_MS / 60_000} minutes`);
}

/** Step 5: every table, source against warehouse. The source is quiet, so its digests are read once. */
export async function verify(source: Pool, warehouse: Pool): Promise<void> {
  const expected = await sourceDigests(source, SAMPLE_TABLES);
  const { seen: actual } = await untilMatching(warehouse, SAMPLE_TABLES, expected, CATCH_UP_DEADLINE_MS);
  say(
    textTable(
      ['table', 'source rows', 'warehouse rows', 'source md5', 'warehouse md5', 'equal'],
      SAMPLE_TABLES.map((table) => {
        const want = expected.get(table);
        const got = actual.get(table) ?? null;
        return [
          table.name,
          String(want?.rows ?? '-'),
          String(got?.rows ?? '-'),
          want?.hash.slice(0, 12) ?? '-',
          got?.hash.slice(0, 12) ?? '-',
          sameDigest(want ?? null, got) ? 'yes' : 'NO',
        ];
      }),
    ).replace(/^/gm, '  '),
  );
  const different = SAMPLE_TABLES.filter((table) => !sameDigest(expected.get(table) ?? null, actual.get(table) ?? null));
  if (different.length) throw new Error(`the warehouse differs from the source in ${different.map((table) => table.name).join(', ')}`);
}

/** Step 6: changes in the source, then the time until the warehouse holds them. */
export async function changeAndMeasureLag(source: Pool, warehouse: Pool): Promise<void> {
  for (const change of SAMPLE_CHANGES) {
    await source.query(change.sql);
    say(`  ${change.what}`);
  }
  const committed = Date.now();
  const expected = await sourceDigests(source, SAMPLE_TABLES);
  await untilMatching(warehouse, TRACKED_TABLES, expected, CATCH_UP_DEADLINE_MS).then(requireMatch);
  say(`  tracked tables (${TRACKED_TABLES.map((table) => table.name).join(', ')}) equal the source ${seconds(Date.now() - committed)} after the last commit`);
  say('  the table without a key is not tracked; waiting for its scheduled reseed (every minute)…');
  const untracked = SAMPLE_TABLES.filter((table) => !table.keyed);
  await untilMatching(warehouse, untracked, expected, RESEED_DEADLINE_MS).then(requireMatch);
  say(`  ${untracked.map((table) => table.name).join(', ')} equal the source ${seconds(Date.now() - committed)} after the last commit (reseeded)`);
}

/** Step 7. */
export function howToLookAtIt(replicationId: string, postgresUrl: string, databases: DemoDatabases = DEMO_DATABASES): void {
  const server = new URL(postgresUrl);
  say(`  ReplicationId: ${replicationId}`);
  say(`  npm run svc -- describe --replication-id ${replicationId}`);
  say(`  psql -h ${server.hostname} -p ${server.port || '5432'} -U ${decodeURIComponent(server.username) || 'postgres'} ${databases.warehouse} -c '\\dt ${DEMO_WAREHOUSE_SCHEMA}.*'`);
  say(`  The replication keeps running: change rows in ${databases.source} and watch them arrive.`);
  say(`  npm run svc -- delete --replication-id ${replicationId}   # to stop it`);
}

async function describe(api: SignedApi, replicationId: string): Promise<ReplicationDescription> {
  return api.call('DescribeWarehouseReplication', { replicationId });
}

async function sourceDigests(source: Pool, tables: SampleTable[]): Promise<Map<SampleTable, Digest>> {
  const digests = await Promise.all(tables.map((table) => digestOf(source, table.source, table)));
  return new Map(tables.map((table, index) => [table, digests[index] ?? { rows: -1, hash: '' }]));
}

interface Comparison {
  seen: Map<SampleTable, Digest | null>;
  expected: Map<SampleTable, Digest>;
  matched: boolean;
  deadlineMs: number;
}

/** Polls the warehouse until each table's digest equals `expected`; on the deadline, reports what it saw. */
async function untilMatching(warehouse: Pool, tables: SampleTable[], expected: Map<SampleTable, Digest>, deadlineMs: number): Promise<Comparison> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const digests = await Promise.all(tables.map((table) => warehouseDigestOf(warehouse, DEMO_WAREHOUSE_SCHEMA, table)));
    const seen = new Map(tables.map((table, index) => [table, digests[index] ?? null]));
    const matched = tables.every((table) => sameDigest(expected.get(table) ?? null, seen.get(table) ?? null));
    if (matched || Date.now() > deadline) return { seen, expected, matched, deadlineMs };
    await sleep(200);
  }
}

function requireMatch(comparison: Comparison): void {
  if (comparison.matched) return;
  const different = [...comparison.seen]
    .filter(([table, digest]) => !sameDigest(comparison.expected.get(table) ?? null, digest))
    .map(([table, digest]) => `${table.name} (source ${comparison.expected.get(table)?.rows ?? '?'} rows, warehouse ${digest?.rows ?? 'no table'})`);
  throw new Error(`the warehouse did not catch up within ${seconds(comparison.deadlineMs)}: ${different.join(', ')}`);
}
