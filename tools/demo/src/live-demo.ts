import type { Pool } from 'pg';
import { liveDemoDatabases, type DemoSettings } from './demo-settings';
import { connectAdmin, openPool, recreateDemoDatabases } from './demo-databases';
import { createReplication, createSampleSource, demoReplicationName, say } from './demo-steps';
import { liveChange } from './live-changes';
import type { SignedApi } from './signed-api';

const LIVE_CHANGE_INTERVAL_MS = 3000;

/**
 * `npm start`'s demo: the demo replication (made once, with its sample source, when no replication of that
 * name exists; kept across restarts, never made again after someone deleted it while this runs), then a small
 * transaction in its source every few seconds until `stopping` aborts, so the console has something live to show.
 */
export async function runLiveDemo(api: SignedApi, settings: DemoSettings, stopping: AbortSignal): Promise<void> {
  const databases = liveDemoDatabases(settings.liveDemoPrefix);
  await untilApiAnswers(api, stopping);
  const { replications } = await api.call('ListWarehouseReplications', {});
  const name = demoReplicationName(databases, 'npm start');
  // Before names were marked, the live demo's replication was named after its source, which nobody else uses.
  const existing = replications.find((replication) => replication.replicationName === name || replication.replicationName === databases.source);
  if (existing) {
    say(`Demo replication ${existing.replicationId} (${existing.replicationName}) keeps running; a change in its source every ${LIVE_CHANGE_INTERVAL_MS / 1000} s.`);
  } else {
    const admin = await connectAdmin(settings.postgresUrl);
    try {
      await recreateDemoDatabases(admin, databases);
    } finally {
      await admin.end();
    }
    const source = openPool(settings.postgresUrl, databases.source);
    try {
      await createSampleSource(source);
    } finally {
      await source.end();
    }
    const replicationId = await createReplication(api, settings.postgresUrl, name, databases);
    say(`Demo replication ${replicationId} created from ${databases.source}; a change in its source every ${LIVE_CHANGE_INTERVAL_MS / 1000} s (SVC_DEMO=off for none).`);
  }
  const source = openPool(settings.postgresUrl, databases.source);
  source.on('error', () => undefined);
  try {
    await changeUntilStopped(source, stopping);
  } finally {
    await source.end();
  }
}

async function changeUntilStopped(source: Pool, stopping: AbortSignal): Promise<void> {
  let tick = await lastLiveTick(source).catch(() => 0);
  let lastProblem = '';
  while (!stopping.aborted) {
    tick += 1;
    try {
      await source.query(liveChange(tick));
      if (lastProblem) say('Demo changes go through again.');
      lastProblem = '';
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      // Once per distinct problem: the source may be gone (another `npm run demo` recreates it) and come back.
      if (problem !== lastProblem) say(`Demo change not made (${problem}); trying again every ${LIVE_CHANGE_INTERVAL_MS / 1000} s.`);
      lastProblem = problem;
    }
    await pause(LIVE_CHANGE_INTERVAL_MS, stopping);
  }
}

/** The stack starts the demo once the API answered; a gateway restarting meanwhile gets a minute. */
async function untilApiAnswers(api: SignedApi, stopping: AbortSignal): Promise<void> {
  const deadline = Date.now() + 60000;
  while (!stopping.aborted && (await api.health().catch(() => 0)) === 0) {
    if (Date.now() > deadline) throw new Error('the api-gateway did not answer for a minute');
    await pause(1000, stopping);
  }
}

/** Where an earlier run's changes stopped, so a restart goes on with new orders. */
async function lastLiveTick(source: Pool): Promise<number> {
  const { rows } = await source.query<{ tick: number }>('SELECT coalesce(max(id) - 1000000, 0)::int AS tick FROM public.orders WHERE id > 1000000');
  return rows[0]?.tick ?? 0;
}

function pause(ms: number, stopping: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(finish, ms);
    stopping.addEventListener('abort', finish, { once: true });
    function finish(): void {
      clearTimeout(timer);
      stopping.removeEventListener('abort', finish);
      done();
    }
  });
}
