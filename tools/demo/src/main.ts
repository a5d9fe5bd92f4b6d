import { resolve } from 'node:path';
import type { Client, Pool } from 'pg';
import { loadDemoSettings, type DemoSettings } from './demo-settings';
import { connectAdmin, openPool } from './demo-databases';
import { changeAndMeasureLag, createReplication, createSampleSource, demoReplicationName, embeddedBucketKey, howToLookAtIt, resetDemo, say, verify, waitForSeeding } from './demo-steps';
import { runLiveDemo } from './live-demo';
import { ApiError, SignedApi, UnreachableError } from './signed-api';

/**
 * `npm run demo`: against the stack `npm start` runs, builds a sample source, replicates it through the
 * signed API, checks the warehouse row for row, changes the source and measures how long the warehouse
 * takes to follow.
 */
async function run(settings: DemoSettings): Promise<void> {
  const api = new SignedApi(settings.endpoint, settings.region, settings);
  // Read first: without the embedded S3 server's credentials nothing below can work.
  const bucketKey = embeddedBucketKey(settings);
  if ((await api.health()) !== 200) throw new UnreachableError(settings.endpoint, '/health does not answer 200');
  if (settings.developmentKey) say('Using the development access key of `npm start` (set SVC_ACCESS_KEY_ID / SVC_SECRET_ACCESS_KEY for another).');
  // Also proves the access key before anything is dropped.
  const { replications } = await api.call('ListWarehouseReplications', {});

  let admin: Client | undefined;
  let source: Pool | undefined;
  let warehouse: Pool | undefined;
  try {
    admin = await connectAdmin(settings.postgresUrl);
    const databases = settings.runDatabases;
    say(`\n1. Recreating the databases ${Object.values(databases).join(', ')} (anything in them is dropped)`);
    await resetDemo(api, admin, replications, databases);

    source = openPool(settings.postgresUrl, databases.source);
    warehouse = openPool(settings.postgresUrl, databases.warehouse);
    say(`\n2. Creating a sample source in ${databases.source}`);
    await createSampleSource(source);

    say('\n3. Creating the replication (signed JSON CreateWarehouseReplication)');
    const replicationId = await createReplication(api, settings.postgresUrl, bucketKey, demoReplicationName(databases, 'npm run demo'), databases);

    say('\n4. Seeding (DescribeWarehouseReplication every second: phase, rows seeded/estimated)');
    await waitForSeeding(api, replicationId);

    say('\n5. Comparing source and warehouse (row count and md5 of all rows in key order)');
    await verify(source, warehouse);

    say('\n6. Changing the source');
    await changeAndMeasureLag(source, warehouse);

    say('\n7. Done. Look around:');
    howToLookAtIt(replicationId, settings.postgresUrl, databases);
  } finally {
    await Promise.allSettled([admin?.end(), source?.end(), warehouse?.end()]);
  }
}

function explain(error: unknown): string {
  if (error instanceof UnreachableError) return `${error.message}.\nStart the service with \`npm start\` in another terminal (or set SVC_ENDPOINT), then run \`npm run demo\` again.`;
  if (error instanceof ApiError && error.status === 403) {
    return `${error.message}\nThe access key was refused: use the one \`npm start\` printed (SVC_ACCESS_KEY_ID / SVC_SECRET_ACCESS_KEY).`;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

let settings: DemoSettings;
try {
  settings = loadDemoSettings(process.env, resolve(__dirname, '..', '..', '..', '..'));
} catch (error) {
  process.stderr.write(`demo: ${explain(error)}\n`);
  process.exit(2);
}
const live = process.argv.includes('--live');
const stopping = new AbortController();
if (live) for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stopping.abort());
(live ? runLiveDemo(new SignedApi(settings.endpoint, settings.region, settings), settings, stopping.signal) : run(settings)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`\ndemo failed: ${explain(error)}\n`);
    process.exit(1);
  },
);
