import { randomBytes, randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import type { JetStreamManager, NatsConnection, Subscription } from 'nats';
import { Client } from 'pg';
import {
  Portable,
  PipelineStreams,
  PipelineSubjects,
  Subjects,
  guardExtractRequested,
  guardWorkCancelled,
  rpcOk,
  tableKey,
  type AlertRecord,
  type BatchLoaded,
  type ChangedTablesRequest,
  type ExtractRequested,
  type ReleaseTablesRequest,
  type ReplicationDescription,
  type TableDefinition,
  type WorkCancelled,
} from '@svc/contracts';
import { PipelinePublisher, connectNats, type NestReplyPacket, type NestRequestPacket } from '@svc/messaging';
import {
  AlertRepository,
  PipelineStateRepository,
  ReplicationRepository,
  ServiceConfigurationRepository,
  type TableRuntimeState,
} from '@svc/registry-store';
import {
  TEST_WORKER_KEY,
  reserveTempDatabase,
  sampleReplicationConfig,
  startTestNats,
  waitUntil,
  type ReplicationConfigOverrides,
  type TempDatabase,
  type TestNats,
} from '@svc/testing';
import { readRegistryConfig } from '../config/registry-config';
import { createRegistryApp } from '../registry-app';
import { ReplicationsService } from '../replications/replications.service';
import { PipelineEventsService } from './pipeline-events.service';
import { PipelineScheduler } from './pipeline-scheduler.service';

/**
 * The scheduler's rules through its real collaborators (control database, JetStream, core NATS) with a
 * fake clock: the timer is off (SCHEDULER_ENABLED=false) and each test calls runOnce(now) itself. The
 * scheduling "minute" is the real 60 s; only `now` moves.
 */

const MASTER_KEY = randomBytes(32).toString('hex');
const author = { requestId: 'it', accessKeyId: 'SVCSCHEDULERIT', scope: 'All' as const };
const T0 = new Date(Date.UTC(2030, 0, 10, 12, 0, 0));
const MINUTE = 60;
const HOUR = 3600;
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** One registry instance on a control database, with the parts the tests drive. */
interface Registry {
  app: INestMicroservice;
  scheduler: PipelineScheduler;
  state: PipelineStateRepository;
  replications: ReplicationRepository;
  service: ServiceConfigurationRepository;
  alerts: AlertRepository;
  events: PipelineEventsService;
  api: ReplicationsService;
}

describe('pipeline scheduler against PostgreSQL and NATS with a fake clock', () => {
  let natsServer: TestNats;
  let nats: NatsConnection;
  let manager: JetStreamManager;
  const started: Registry[] = [];
  const databases: TempDatabase[] = [];
  const cancellations: WorkCancelled[] = [];
  const publishedAlerts: AlertRecord[] = [];
  /** Next sequence of the work stream to look at for ExtractRequested messages. */
  let nextSequence = 1;
  /** Every ExtractRequested seen, by work id. */
  const publishedById = new Map<string, ExtractRequested>();

  beforeAll(async () => {
    natsServer = await startTestNats();
    nats = await connectNats(natsServer.url, 'scheduler-integration-test');
    nats.subscribe(Subjects.workCancelled, {
      callback: (error, message) => {
        if (error) return;
        const guarded = guardWorkCancelled(nestEventData(message.json()));
        if (guarded.ok) cancellations.push(guarded.value);
      },
    });
    nats.subscribe(Subjects.alertRaised, {
      callback: (error, message) => {
        if (!error) publishedAlerts.push(nestEventData(message.json()) as AlertRecord);
      },
    });
    await nats.flush();
    manager = await nats.jetstreamManager();
  });

  afterAll(async () => {
    for (const registry of started) await registry.app.close().catch(() => undefined);
    await nats?.drain();
    await natsServer?.stop();
    await Promise.all(databases.map((database) => database.drop()));
  });

  /** `logLines` collects the registry's log at level info when given (else only errors are written, and dropped). */
  async function startRegistry(database: TempDatabase, logLines?: Record<string, unknown>[], environment: Record<string, string> = {}): Promise<Registry> {
    const config = readRegistryConfig({
      DATABASE_URL: database.url,
      NATS_URL: natsServer.url,
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_WORKER_KEY: TEST_WORKER_KEY,
      ALLOW_LOOPBACK_TARGETS: 'true',
      SCHEDULER_ENABLED: 'false',
      LOG_LEVEL: logLines ? 'info' : 'error',
      ...environment,
    });
    const app = await createRegistryApp(config, { logSink: (line) => logLines?.push(JSON.parse(line) as Record<string, unknown>) });
    const registry: Registry = {
      app,
      scheduler: app.get(PipelineScheduler),
      state: app.get(PipelineStateRepository),
      replications: app.get(ReplicationRepository),
      service: app.get(ServiceConfigurationRepository),
      alerts: app.get(AlertRepository),
      events: app.get(PipelineEventsService),
      api: app.get(ReplicationsService),
    };
    started.push(registry);
    return registry;
  }

  async function stopRegistry(registry: Registry): Promise<void> {
    started.splice(started.indexOf(registry), 1);
    await registry.app.close();
  }

  function newDatabase(): TempDatabase {
    const database = reserveTempDatabase('svc_scheduler_it');
    databases.push(database);
    return database;
  }

  /** A Running replication with its tables registered as discovered (Pending), so no discovery is asked for. */
  async function addReplication(registry: Registry, name: string, tables: string[], overrides: ReplicationConfigOverrides = {}): Promise<string> {
    const stored = await registry.replications.insert({ status: 'Running', config: sampleReplicationConfig({ ...overrides, replicationName: name }) }, author);
    await registry.state.registerTables(
      stored.replicationId,
      stored.version,
      tables.map((tableName) => ({ tableName, tracked: true, rowsEstimated: 100 })),
    );
    return stored.replicationId;
  }

  /** How many of the messages read by publishedWork carried a group. */
  let groupsPublished = 0;

  /** ExtractRequested messages published since the last call, read from the work stream (a group's as its members). */
  async function publishedWork(): Promise<ExtractRequested[]> {
    const info = await manager.streams.info(PipelineStreams.work.name);
    const found: ExtractRequested[] = [];
    for (; nextSequence <= info.state.last_seq; nextSequence += 1) {
      const message = await manager.streams.getMessage(PipelineStreams.work.name, { seq: nextSequence }).catch(() => null);
      if (message?.subject !== PipelineSubjects.extractRequested) continue;
      const payload = message.json<{ group?: unknown[] }>();
      groupsPublished += Array.isArray(payload.group) ? 1 : 0;
      // A group's message carries each member's work as it would travel alone.
      for (const member of Array.isArray(payload.group) ? payload.group : [payload]) {
        const guarded = guardExtractRequested(member);
        if (!guarded.ok) throw new Error(`malformed ExtractRequested: ${guarded.problems.join('; ')}`);
        found.push(guarded.value);
        publishedById.set(guarded.value.workId, guarded.value);
      }
    }
    return found;
  }

  /** An extractor's side of one request subject: each request is recorded in `requests` and answered ok with `answer`. */
  function answerAsExtractor<T>(subject: string, requests: T[], answer: (request: T) => unknown): Subscription {
    return nats.subscribe(subject, {
      callback: (error, message) => {
        if (error) return;
        const packet = message.json<NestRequestPacket<T>>();
        requests.push(packet.data);
        const reply: NestReplyPacket = { id: packet.id, response: rpcOk(answer(packet.data)), isDisposed: true };
        message.respond(JSON.stringify(reply));
      },
    });
  }

  /** Waits until work is published (by the scheduler's own timer, not by a pass the test runs); returns it. */
  async function workPublishedWithin(deadlineMs: number, what: string): Promise<ExtractRequested[]> {
    const found: ExtractRequested[] = [];
    await waitUntil(
      async () => {
        found.push(...(await publishedWork()));
        return found.length > 0;
      },
      deadlineMs,
      what,
    );
    return found;
  }

  /** One scheduling pass at `now`; returns what it published, checked against what runOnce says it issued. */
  async function pass(registry: Registry, now: Date): Promise<ExtractRequested[]> {
    const issued = await registry.scheduler.runOnce(now);
    const published = await publishedWork();
    expect(published.map(workKey).sort()).toEqual(issued.map((order) => `${order.replicationId} ${order.tableName} ${order.kind}`).sort());
    for (const work of published) expect(work.requestedAt).toBe(now.toISOString());
    return published;
  }

  function loaded(registry: Registry, work: ExtractRequested, now: Date, version: string, rowCount = 0, columns: Pick<BatchLoaded, 'addedColumns' | 'filledColumns'> = { addedColumns: [] }): Promise<void> {
    return registry.events.batchLoaded(
      {
        workId: work.workId,
        batchId: randomUUID(),
        replicationId: work.replicationId,
        table: work.table,
        kind: work.kind,
        ...(work.kind === 'seed' && { part: 1, final: true }),
        version,
        rowCount,
        ...columns,
        extractedAt: now.toISOString(),
        loadedAt: now.toISOString(),
      },
      now,
    );
  }

  /** A worker's heartbeat of the work at `now`: the work is alive (it keeps a serialized replication's slot). */
  function heartbeat(registry: Registry, work: ExtractRequested, now: Date): Promise<void> {
    return registry.events.workProgress({ workId: work.workId, replicationId: work.replicationId, table: work.table, stage: 'extract', at: now.toISOString() }, now);
  }

  function failed(registry: Registry, work: ExtractRequested, now: Date, failure: { retryable: boolean; message: string; scope?: 'table' | 'replication'; reseed?: boolean }): Promise<void> {
    const issuedUnder = work.configVersion === undefined ? {} : { configVersion: work.configVersion };
    return registry.events.workFailed(
      { workId: work.workId, replicationId: work.replicationId, table: work.table, stage: 'load', failedAt: now.toISOString(), ...issuedUnder, ...failure },
      now,
    );
  }

  async function tableState(registry: Registry, replicationId: string, tableName: string): Promise<TableRuntimeState> {
    const found = (await registry.state.listTables([replicationId])).find((table) => table.tableName === tableName);
    if (!found) throw new Error(`no state for ${tableName}`);
    return found;
  }

  /** The published work a table has in flight. */
  async function workInFlight(registry: Registry, replicationId: string, tableName: string): Promise<ExtractRequested> {
    const { inFlightWorkId } = await tableState(registry, replicationId, tableName);
    const work = inFlightWorkId === null ? undefined : publishedById.get(inFlightWorkId);
    if (!work) throw new Error(`${tableName} has no published work in flight`);
    return work;
  }

  async function describeReplication(registry: Registry, replicationId: string): Promise<ReplicationDescription> {
    const reply = await registry.api.describe(replicationId);
    if (!reply.ok) throw new Error(reply.error.messages.join('; '));
    return reply.value;
  }

  /** Seeds every Pending table of the replications with one pass and completes the seeds at version 100. */
  async function seedAll(registry: Registry, now: Date): Promise<void> {
    const seeds = await pass(registry, now);
    expect(seeds.length).toBeGreaterThan(0);
    for (const seed of seeds) {
      expect(seed.kind).toBe('seed');
      await loaded(registry, seed, new Date(now.getTime() + 1000), '100');
    }
  }

  describe('CtProcessTimeoutInMinutes', () => {
    let registry: Registry;
    let replicationId = '';
    const table = '[public].[orders]';

    beforeAll(async () => {
      registry = await startRegistry(newDatabase());
      replicationId = await addReplication(registry, 'timeouts', [table], { ctProcessTimeoutInMinutes: 1 });
    });

    async function cancelledMessageFor(workId: string): Promise<WorkCancelled> {
      await waitUntil(async () => cancellations.some((message) => message.workId === workId), 5000, `work.cancelled for ${workId}`);
      const message = cancellations.find((candidate) => candidate.workId === workId);
      if (!message) throw new Error('unreachable');
      return message;
    }

    it('cancels a cycle past its timeout, doubling 1 → 2 → 4 minutes → no limit, and back to 1 after a loaded batch', async () => {
      const [seed] = await pass(registry, at(0));
      expect(seed).toMatchObject({ replicationId, kind: 'seed', epoch: 1 });
      await loaded(registry, seed, at(1), '100');

      let second = 2;
      let [cycle] = await pass(registry, at(second));
      expect(cycle).toMatchObject({ kind: 'changes', fromVersion: '100', epoch: 2 });
      const cancelledWork: ExtractRequested[] = [];
      for (const [limit, next] of [
        [1, '2 minutes'],
        [2, '4 minutes'],
        [4, 'no limit'],
      ] as const) {
        const current = cycle;
        // At exactly the limit the cycle still runs.
        expect(await pass(registry, at(second + limit * MINUTE))).toEqual([]);
        expect(await tableState(registry, replicationId, table)).toMatchObject({ inFlightWorkId: current.workId });

        expect(await pass(registry, at(second + limit * MINUTE + 1))).toEqual([]);
        const reason = `change cycle cancelled after ${String(limit)} minutes (CtProcessTimeoutInMinutes); the next one gets ${next}`;
        expect(await cancelledMessageFor(current.workId)).toMatchObject({ replicationId, table: { schema: 'public', name: 'orders' }, reason });
        expect((await describeReplication(registry, replicationId)).tables).toEqual([expect.objectContaining({ name: table, phase: 'Tracking', lastError: reason, lastVersion: '100' })]);
        cancelledWork.push(current);

        second += limit * MINUTE + 2;
        [cycle] = await pass(registry, at(second));
        expect(cycle).toMatchObject({ kind: 'changes', fromVersion: '100', epoch: current.epoch + 1 });
      }

      // After the third cancel: no limit (only the day-long safety net).
      expect(await pass(registry, at(second + 6 * HOUR))).toEqual([]);
      expect(await tableState(registry, replicationId, table)).toMatchObject({ inFlightWorkId: cycle.workId, ctTimeoutLevel: 3 });
      expect(cancellations.some((message) => message.workId === cycle.workId)).toBe(false);

      // A cancelled cycle that finishes after all moves nothing.
      await loaded(registry, cancelledWork[0], at(second + 6 * HOUR + 1), '999', 5);
      expect(await tableState(registry, replicationId, table)).toMatchObject({ lastVersion: '100', inFlightWorkId: cycle.workId, ctTimeoutLevel: 3 });

      // A whole batch (ChangeTrackingBatchLimit, 500,000 by default): a backlog is left behind it.
      await loaded(registry, cycle, at(second + 6 * HOUR + 2), '150', 500_000);
      expect(await tableState(registry, replicationId, table)).toMatchObject({ lastVersion: '150', ctTimeoutLevel: 0, lastError: null, inFlightWorkId: null });
      second += 6 * HOUR + 3;
      const [after] = await pass(registry, at(second));
      expect(after).toMatchObject({ kind: 'changes', fromVersion: '150', epoch: cycle.epoch + 1 });
      expect(await pass(registry, at(second + MINUTE))).toEqual([]);
      // The last loaded batch was a whole batch, so (IsContinuous) the next cycle starts in the pass that cancels this one.
      const [next] = await pass(registry, at(second + MINUTE + 1));
      expect(await cancelledMessageFor(after.workId)).toMatchObject({
        reason: 'change cycle cancelled after 1 minutes (CtProcessTimeoutInMinutes); the next one gets 2 minutes',
      });
      expect(next).toMatchObject({ kind: 'changes', fromVersion: '150', epoch: after.epoch + 1 });
      expect(await tableState(registry, replicationId, table)).toMatchObject({ inFlightWorkId: next.workId, ctTimeoutLevel: 1 });
    });
  });

  describe('serialization', () => {
    const database = newDatabase();
    let registry: Registry;
    let first = '';
    let second = '';
    const config = { serializedCtProcessTimeoutInMinutes: 5, autoSerializedCtProcessTimeoutInMinutes: 3, ctProcessTimeoutInMinutes: 60 };

    beforeAll(async () => {
      registry = await startRegistry(database);
      first = await addReplication(registry, 'first', ['[public].[a]'], config);
      second = await addReplication(registry, 'second', ['[public].[b]'], config);
    });

    const owners = (work: ExtractRequested[]) => work.map((unit) => unit.replicationId);

    it('with SerializeReplications, runs one replication until its run ends or exceeds SerializedCtProcessTimeoutInMinutes', async () => {
      await registry.service.update({ serializeReplications: true });

      // Seeds, one replication at a time.
      const firstSeed = await pass(registry, at(0));
      expect(owners(firstSeed)).toEqual([first]);
      expect(await pass(registry, at(0.5))).toEqual([]);
      await loaded(registry, firstSeed[0], at(1), '100');
      const secondSeed = await pass(registry, at(2));
      expect(owners(secondSeed)).toEqual([second]);
      await loaded(registry, secondSeed[0], at(3), '100');

      // Change cycles: the replication whose last run ended longest ago goes first, the other waits.
      const firstCycle = await pass(registry, at(4));
      expect(owners(firstCycle)).toEqual([first]);
      expect(await pass(registry, at(5))).toEqual([]);
      await heartbeat(registry, firstCycle[0], at(300));
      expect(await pass(registry, at(4 + 5 * MINUTE))).toEqual([]);
      await loaded(registry, firstCycle[0], at(310), '110');

      // Its run finished: the other one's turn.
      const secondCycle = await pass(registry, at(311));
      expect(owners(secondCycle)).toEqual([second]);
      await heartbeat(registry, secondCycle[0], at(311 + 4 * MINUTE - 5));
      expect(await pass(registry, at(311 + 4 * MINUTE))).toEqual([]);
      await heartbeat(registry, secondCycle[0], at(311 + 5 * MINUTE - 5));

      // The run exceeds SerializedCtProcessTimeoutInMinutes: the next queued one starts beside it.
      const beside = await pass(registry, at(311 + 5 * MINUTE + 1));
      expect(owners(beside)).toEqual([first]);
      expect(await tableState(registry, first, '[public].[a]')).toMatchObject({ inFlightWorkId: beside[0].workId });
      expect(await tableState(registry, second, '[public].[b]')).toMatchObject({ inFlightWorkId: secondCycle[0].workId });

      // Back to no configured limit: this instance (past its restart) runs both at once.
      await loaded(registry, beside[0], at(620), '120');
      await loaded(registry, secondCycle[0], at(620), '120');
      await registry.service.update({ serializeReplications: false });
      const parallel = await pass(registry, at(621));
      expect(owners(parallel).sort()).toEqual([first, second].sort());
      for (const work of parallel) await loaded(registry, work, at(622), '130');
    });

    it('after a restart, serializes on its own until each replication completed a run, then runs them in parallel', async () => {
      await stopRegistry(registry);
      registry = await startRegistry(database);
      expect(await registry.service.get()).toMatchObject({ serializeReplications: false, parallelDatabaseReplicationsLimit: 0 });

      const start = 630;
      const leading = await pass(registry, at(start));
      expect(leading).toHaveLength(1);
      const [leader] = owners(leading);
      const follower = leader === first ? second : first;
      // Its workers are alive (heartbeats): the run holds the single slot.
      await heartbeat(registry, leading[0], at(start + 2 * MINUTE - 10));
      expect(await pass(registry, at(start + 2 * MINUTE))).toEqual([]);
      await heartbeat(registry, leading[0], at(start + 3 * MINUTE - 10));
      expect(await pass(registry, at(start + 3 * MINUTE))).toEqual([]);

      // The current run exceeds AutoSerializedCtProcessTimeoutInMinutes: the next one is launched in parallel.
      const launched = await pass(registry, at(start + 3 * MINUTE + 1));
      expect(owners(launched)).toEqual([follower]);
      expect(await tableState(registry, leader, leader === first ? '[public].[a]' : '[public].[b]')).toMatchObject({ inFlightWorkId: leading[0].workId });

      // Both completed a run: back to the configured (absent) limit.
      await loaded(registry, leading[0], at(start + 4 * MINUTE), '140');
      await loaded(registry, launched[0], at(start + 4 * MINUTE), '140');
      const both = await pass(registry, at(start + 4 * MINUTE + 1));
      expect(owners(both).sort()).toEqual([first, second].sort());
      const followerWork = both.find((work) => work.replicationId === follower)!;
      await loaded(registry, followerWork, at(start + 4 * MINUTE + 2), '150');
      expect(owners(await pass(registry, at(start + 4 * MINUTE + 3)))).toEqual([follower]);
    });

    it('serializes on its own again when the service is started after StopReplicationService', async () => {
      const start = 1000;
      for (const [replicationId, table] of [[first, '[public].[a]'], [second, '[public].[b]']] as const) {
        const inFlight = (await tableState(registry, replicationId, table)).inFlightWorkId;
        const work = inFlight === null ? undefined : publishedById.get(inFlight);
        if (work) await loaded(registry, work, at(start), '160');
      }
      await registry.service.update({ serviceStopped: true });
      expect(await pass(registry, at(start + 1))).toEqual([]);
      await registry.service.update({ serviceStopped: false });
      const resumed = await pass(registry, at(start + 2));
      expect(resumed).toHaveLength(1);
      expect(await pass(registry, at(start + 3))).toEqual([]);
      await loaded(registry, resumed[0], at(start + 4), '170');
      const next = await pass(registry, at(start + 5));
      expect(owners(next)).toEqual([first, second].filter((id) => id !== resumed[0].replicationId));
    });
  });

  describe('a bus that refuses the work', () => {
    it('stops the pass at the first refused publish instead of claiming and releasing every other table, and issues all once NATS is back', async () => {
      const ownNats = await startTestNats();
      let started: Registry | undefined;
      try {
        const logLines: Record<string, unknown>[] = [];
        const registry = await startRegistry(newDatabase(), logLines, { NATS_URL: ownNats.url });
        started = registry;
        const tables = ['[public].[a]', '[public].[b]', '[public].[c]'];
        const replicationId = await addReplication(registry, 'bus-down', tables);
        const epochs = async () => Promise.all(tables.map(async (table) => (await tableState(registry, replicationId, table)).workEpoch));
        const before = await epochs();

        await ownNats.down();
        expect(await registry.scheduler.runOnce(at(0))).toEqual([]);
        expect(await registry.scheduler.runOnce(at(1))).toEqual([]);
        // Each pass claimed one table (and released it), not all three.
        const claimed = (await epochs()).map((epoch, index) => epoch - (before[index] ?? 0));
        expect(claimed.reduce((sum, count) => sum + count, 0)).toBe(2);
        for (const table of tables) expect(await tableState(registry, replicationId, table)).toMatchObject({ inFlightWorkId: null });
        expect(logLines.filter((line) => line['level'] === 'error' && String(line['msg']).startsWith('could not publish work'))).toHaveLength(1);

        await ownNats.up();
        await waitUntil(async () => (await registry.scheduler.runOnce(at(2))).length > 0, 30000, 'work published once NATS is back');
        await waitUntil(async () => (await Promise.all(tables.map((table) => tableState(registry, replicationId, table)))).every((table) => table.inFlightWorkId !== null), 30000, 'every table issued');
        expect(logLines.filter((line) => line['msg'] === 'publishing work again')).toHaveLength(1);
      } finally {
        // The registry first, with its NATS up: closed while NATS is gone, its connection waits for a server that never comes.
        await ownNats.up();
        if (started) await stopRegistry(started);
        await ownNats.stop();
      }
    }, 90000);
  });

  describe('a scheduler stopped between claim and publish', () => {
    /** The scheduler holds each claim (committed) before publishing it: stopping it then is a crash at that point. */
    const holdBeforePublish = { SVC_TEST_HOOK_HOLD_CLAIM_BEFORE_PUBLISH_MS: '600000' };

    /** Starts a pass on a held registry and waits until its claim of `tableName` is committed, unpublished. */
    async function claimWithoutPublishing(registry: Registry, replicationId: string, tableName: string, now: Date): Promise<TableRuntimeState> {
      void registry.scheduler.runOnce(now).catch(() => undefined);
      await waitUntil(async () => (await tableState(registry, replicationId, tableName)).inFlightWorkId !== null, 10000, `a claim of ${tableName}`);
      const claimed = await tableState(registry, replicationId, tableName);
      expect(claimed).toMatchObject({ inFlightPublishedAt: null });
      return claimed;
    }

    it('the next leader publishes the claimed work at its first pass, once, under the same work id and epoch', async () => {
      const database = newDatabase();
      const crashed = await startRegistry(database, undefined, holdBeforePublish);
      const replicationId = await addReplication(crashed, 'claimed-then-killed', ['[public].[a]']);
      const claim = await claimWithoutPublishing(crashed, replicationId, '[public].[a]', at(0));
      expect(await publishedWork()).toEqual([]);
      await stopRegistry(crashed);

      const leader = await startRegistry(database);
      expect(await leader.scheduler.runOnce(at(2))).toEqual([]);
      const republished = await publishedWork();
      expect(republished).toEqual([expect.objectContaining({ workId: claim.inFlightWorkId, replicationId, kind: 'seed', epoch: claim.workEpoch, requestedAt: at(0).toISOString() })]);
      expect(await tableState(leader, replicationId, '[public].[a]')).toMatchObject({ inFlightWorkId: claim.inFlightWorkId, inFlightPublishedAt: at(2) });

      // Published once: the next pass sends nothing, and the work completes as usual.
      expect(await leader.scheduler.runOnce(at(3))).toEqual([]);
      expect(await publishedWork()).toEqual([]);
      await loaded(leader, republished[0], at(4), '100');
      expect(await tableState(leader, replicationId, '[public].[a]')).toMatchObject({ phase: 'Tracking', lastVersion: '100', inFlightWorkId: null });
    });

    it('a message that reached JetStream before the crash is not delivered twice', async () => {
      const database = newDatabase();
      const crashed = await startRegistry(database, undefined, holdBeforePublish);
      const replicationId = await addReplication(crashed, 'published-then-killed', ['[public].[a]']);
      const claim = await claimWithoutPublishing(crashed, replicationId, '[public].[a]', at(0));
      // The crash came after the publish but before it was recorded: the message is in the stream already.
      const stored = (await crashed.app.get(PipelineStateRepository).unpublishedWork()).find((work) => work.workId === claim.inFlightWorkId);
      const request = guardExtractRequested(stored?.request);
      if (!request.ok) throw new Error(request.problems.join('; '));
      await new PipelinePublisher(nats).publish(PipelineSubjects.extractRequested, request.value, request.value.workId);
      await stopRegistry(crashed);

      const leader = await startRegistry(database);
      await leader.scheduler.runOnce(at(2));
      expect((await publishedWork()).map((work) => work.workId)).toEqual([claim.inFlightWorkId]);
      expect(await tableState(leader, replicationId, '[public].[a]')).toMatchObject({ inFlightPublishedAt: at(2) });
    });

    it('after a restart, a replication whose work shows no sign of life does not keep the others waiting', async () => {
      const database = newDatabase();
      const registry = await startRegistry(database);
      const config = { autoSerializedCtProcessTimeoutInMinutes: 30, ctProcessTimeoutInMinutes: 30 };
      const stuck = await addReplication(registry, 'stuck', ['[public].[a]'], config);
      const waiting = await addReplication(registry, 'waiting', ['[public].[b]'], config);
      // The restarted leader serializes: one replication's seed, then nothing while it is alive.
      const [leading] = await pass(registry, at(0));
      const follower = leading.replicationId === stuck ? waiting : stuck;
      await heartbeat(registry, leading, at(50));
      expect(await pass(registry, at(100))).toEqual([]);
      // Describe shows the stall: work in flight since the claim, last progress at the heartbeat.
      const described = (await describeReplication(registry, leading.replicationId)).tables[0];
      expect(described).toMatchObject({ workStartedAt: at(0).toISOString(), lastProgressAt: at(50).toISOString() });
      expect(typeof described.inFlightSeconds).toBe('number');

      // No worker has shown any sign of it for a minute (STALLED_WORK_SECONDS): the next one starts beside it.
      const beside = await pass(registry, at(111));
      expect(owners(beside)).toEqual([follower]);
      expect(await tableState(registry, leading.replicationId, leading.replicationId === stuck ? '[public].[a]' : '[public].[b]')).toMatchObject({ inFlightWorkId: leading.workId });
    });

    const owners = (work: ExtractRequested[]) => work.map((unit) => unit.replicationId);
  });

  describe('small changes of several tables', () => {
    it('issues the change cycles of small tables as one group (one unit of ParallelTablesLimit), each member its own claim, and a busy table alone', async () => {
      const database = newDatabase();
      const registry = await startRegistry(database, undefined, { WORK_GROUP_TABLES: '100' });
      const tables = ['[public].[a]', '[public].[b]', '[public].[c]', '[public].[d]'];
      const replicationId = await addReplication(registry, 'grouped', tables, { parallelTablesLimit: 1 });
      // One seed at a time (seeds never travel together).
      for (const [index] of tables.entries()) await seedAll(registry, at(index / 10));
      const groupsBefore = groupsPublished;

      const cycle = await pass(registry, at(2));
      expect(cycle.map((work) => work.table.name).sort()).toEqual(['a', 'b', 'c', 'd']);
      expect(groupsPublished).toBe(groupsBefore + 1);
      const states = await Promise.all(tables.map((table) => tableState(registry, replicationId, table)));
      expect(new Set(states.map((state) => state.inFlightGroupId)).size).toBe(1);
      expect(states[0]?.inFlightGroupId).not.toBeNull();
      expect(new Set(states.map((state) => state.inFlightWorkId)).size).toBe(4);

      // Each member completes as it would alone; the one that moved many rows goes alone next time.
      for (const [index, work] of cycle.entries()) await loaded(registry, work, at(3), '110', index === 0 ? 5000 : 1);
      for (const table of tables) expect(await tableState(registry, replicationId, table)).toMatchObject({ lastVersion: '110', inFlightWorkId: null });
      const next = await pass(registry, at(5));
      // ParallelTablesLimit 1: the busy table's cycle takes the only unit, the small ones wait for it.
      expect(next.map((work) => work.table.name)).toEqual([cycle[0]?.table.name]);
      expect(groupsPublished).toBe(groupsBefore + 1);
      await stopRegistry(registry);
    });
  });

  describe('failures', () => {
    let registry: Registry;
    let replicationId = '';
    const a = '[public].[a]';
    const b = '[public].[b]';
    const inFlight = new Map<string, ExtractRequested>();
    let clock = 0;
    let database: TempDatabase;

    beforeAll(async () => {
      database = newDatabase();
      registry = await startRegistry(database);
      replicationId = await addReplication(registry, 'failures', [a, b]);
      await seedAll(registry, at(0));
      clock = 2;
    });

    async function passAt(seconds: number): Promise<ExtractRequested[]> {
      clock = seconds;
      const work = await pass(registry, at(seconds));
      for (const unit of work) inFlight.set(`[${unit.table.schema}].[${unit.table.name}]`, unit);
      return work;
    }

    const tablesOf = (work: ExtractRequested[]) => work.map((unit) => `[${unit.table.schema}].[${unit.table.name}]`).sort();
    const failureAlerts = async () => (await registry.alerts.listByReplication(replicationId)).filter((alert) => alert.kind === 'Failure');

    it('waits out the backoff of a retryable failure, then gives the table work again', async () => {
      expect(tablesOf(await passAt(2))).toEqual([a, b]);
      const failedAt = at(3);
      await failed(registry, inFlight.get(a)!, failedAt, { retryable: true, message: 'connection refused' });
      const waiting = await tableState(registry, replicationId, a);
      expect(waiting).toMatchObject({ phase: 'Tracking', failureCount: 1, lastError: 'connection refused', inFlightWorkId: null });
      const retryAt = waiting.retryAt!;
      expect(retryAt.getTime() - failedAt.getTime()).toBeGreaterThanOrEqual(2500);
      expect(retryAt.getTime() - failedAt.getTime()).toBeLessThanOrEqual(5000);

      await loaded(registry, inFlight.get(b)!, at(3), '110');
      expect(tablesOf(await passAt(4))).toEqual([b]);
      expect(await pass(registry, new Date(retryAt.getTime() - 1))).toEqual([]);
      const retried = await pass(registry, retryAt);
      expect(tablesOf(retried)).toEqual([a]);
      inFlight.set(a, retried[0]);
      clock = (retryAt.getTime() - T0.getTime()) / 1000;

      // A second failure in a row waits longer.
      const secondFailure = at(clock + 1);
      await failed(registry, inFlight.get(a)!, secondFailure, { retryable: true, message: 'deadlock detected' });
      const again = await tableState(registry, replicationId, a);
      expect(again.failureCount).toBe(2);
      expect(again.retryAt!.getTime() - secondFailure.getTime()).toBeGreaterThanOrEqual(5000);
      expect(again.retryAt!.getTime() - secondFailure.getTime()).toBeLessThanOrEqual(10000);
      clock = (again.retryAt!.getTime() - T0.getTime()) / 1000;
      expect(tablesOf(await passAt(clock))).toEqual([a]);
    });

    it('puts a table in Error with a Failure alert on a terminal failure; the other table keeps working', async () => {
      publishedAlerts.length = 0;
      await failed(registry, inFlight.get(a)!, at(clock + 1), { retryable: false, message: 'relation "public.a" does not exist' });
      expect(await tableState(registry, replicationId, a)).toMatchObject({ phase: 'Error', inFlightWorkId: null, retryAt: null });
      expect(await failureAlerts()).toEqual([expect.objectContaining({ message: '[public].[a]: relation "public.a" does not exist' })]);
      await waitUntil(async () => publishedAlerts.some((alert) => alert.replicationId === replicationId && alert.kind === 'Failure'), 5000, 'the Failure alert');

      await loaded(registry, inFlight.get(b)!, at(clock + 1), '120');
      expect(tablesOf(await passAt(clock + 2))).toEqual([b]);
      expect(tablesOf(await passAt(clock + MINUTE))).toEqual([]);
      const description = await describeReplication(registry, replicationId);
      expect(description.status).toBe('Running');
      expect(description.tables).toEqual([
        expect.objectContaining({ name: a, phase: 'Error', lastError: 'relation "public.a" does not exist' }),
        expect.objectContaining({ name: b, phase: 'Tracking' }),
      ]);
    });

    it('fails the replication on a terminal replication-wide failure; StartReplication runs it again', async () => {
      await failed(registry, inFlight.get(b)!, at(clock + 1), { retryable: false, scope: 'replication', message: 'password authentication failed for user "loader"' });
      const reason = 'load of [public].[b] failed: password authentication failed for user "loader"';
      const failedDescription = await describeReplication(registry, replicationId);
      expect(failedDescription).toMatchObject({ status: 'Failed', lastError: reason });
      expect((await failureAlerts()).map((alert) => alert.message)).toContain(`replication failed: ${reason}`);
      expect(await tableState(registry, replicationId, b)).toMatchObject({ phase: 'Tracking', inFlightWorkId: null });
      expect(await passAt(clock + MINUTE)).toEqual([]);

      expect(await registry.api.start(replicationId, author)).toEqual({ ok: true, value: null });
      expect(await describeReplication(registry, replicationId)).toMatchObject({ status: 'Running', lastError: null });
      expect(await tableState(registry, replicationId, a)).toMatchObject({ phase: 'Tracking', lastError: null, lastVersion: '100' });
      expect(tablesOf(await passAt(clock + 1))).toEqual([a, b]);
    });

    it('retries a replication-wide failure of work that began before the configuration changed (a rotated password)', async () => {
      const work = inFlight.get(a)!;
      // The replication was altered after the work was claimed (the fake clock runs ahead of the database's).
      const control = new Client({ connectionString: database.url });
      await control.connect();
      try {
        await control.query('UPDATE replications SET updated_at = $2 WHERE id = $1', [replicationId, at(clock + 1)]);
      } finally {
        await control.end();
      }
      await failed(registry, work, at(clock + 2), { retryable: false, scope: 'replication', message: 'password authentication failed for user "old"' });
      expect(await describeReplication(registry, replicationId)).toMatchObject({ status: 'Running' });
      const state = await tableState(registry, replicationId, a);
      expect(state).toMatchObject({ phase: 'Tracking', failureCount: 1, inFlightWorkId: null });
      expect(state.lastError).toMatch(/with the settings before the last change; retried/);
      expect(state.retryAt).not.toBeNull();
    });

    it('retries a replication-wide failure of work issued under an older configuration version', async () => {
      const work = inFlight.get(b)!;
      expect(work.configVersion).toBe((await registry.replications.get(replicationId))?.version);
      expect((await registry.api.alter({ replicationId, changeTrackingBatchLimit: 777 }, author)).ok).toBe(true);
      await failed(registry, work, at(clock + 3), { retryable: false, scope: 'replication', message: 'password authentication failed for user "old"' });
      expect(await describeReplication(registry, replicationId)).toMatchObject({ status: 'Running' });
      expect(await tableState(registry, replicationId, b)).toMatchObject({ phase: 'Tracking', failureCount: 1, inFlightWorkId: null });
    });
  });

  describe('RetentionDanger', () => {
    let registry: Registry;
    let replicationId = '';
    const table = '[public].[events]';
    /** 75 % of 12 hours. */
    const danger = 9 * HOUR;

    beforeAll(async () => {
      registry = await startRegistry(newDatabase());
      replicationId = await addReplication(registry, 'retention', [table], { source: { changeTrackingRetentionPeriod: '12 Hours' } });
    });

    const retentionAlerts = async () => (await registry.alerts.listByReplication(replicationId)).filter((alert) => alert.kind === 'RetentionDanger');

    it('alerts once when the watermark has not moved for 75 % of the retention period, and again after it moved and aged', async () => {
      publishedAlerts.length = 0;
      await seedAll(registry, at(0));
      const watermarkAt = 1;
      // Cycles start, run past their timeout and are cancelled; the watermark does not move.
      await pass(registry, at(watermarkAt + 1));
      expect(await pass(registry, at(watermarkAt + danger - 1))).toEqual([]);
      expect(await retentionAlerts()).toEqual([]);

      await pass(registry, at(watermarkAt + danger));
      const [alert] = await retentionAlerts();
      expect(alert?.message).toMatch(/^\[public\]\.\[events\]: changes not consumed since 2030-01-10T12:00:01\.000Z; the source purges them after 12 Hours/);
      await waitUntil(async () => publishedAlerts.some((published) => published.alertId === alert?.alertId), 5000, 'the RetentionDanger alert on svc.events.v1.alert');
      expect(publishedAlerts.find((published) => published.alertId === alert?.alertId)).toEqual(alert);

      await pass(registry, at(watermarkAt + danger + MINUTE));
      await pass(registry, at(watermarkAt + danger + HOUR));
      expect(await retentionAlerts()).toHaveLength(1);

      // A cycle completes: the watermark is current again; it takes another 9 hours to alert again.
      const moved = watermarkAt + danger + HOUR + 10;
      // Two passes: the first may cancel the cycle that ran past its timeout, the second issues the next.
      await pass(registry, at(moved - 5));
      await pass(registry, at(moved - 4));
      await loaded(registry, await workInFlight(registry, replicationId, table), at(moved), '200', 1);
      await pass(registry, at(moved + danger - 1));
      expect(await retentionAlerts()).toHaveLength(1);
      await pass(registry, at(moved + danger));
      expect(await retentionAlerts()).toHaveLength(2);
    });
  });

  describe('columns added with a value for existing rows', () => {
    it('reseeds the table right after the batch that added them, with the reason in Describe and a Reseed alert', async () => {
      const registry = await startRegistry(newDatabase());
      const table = '[public].[orders]';
      const replicationId = await addReplication(registry, 'filled', [table]);
      await seedAll(registry, at(0));
      const [cycle] = await pass(registry, at(5));
      await loaded(registry, cycle, at(6), '120', 3, { addedColumns: ['status', 'note'], filledColumns: ['status'] });
      expect(await tableState(registry, replicationId, table)).toMatchObject({ phase: 'Reseeding', lastVersion: null, inFlightWorkId: null });
      const described = await describeReplication(registry, replicationId);
      expect(described.tables[0]?.lastError).toMatch(/^column\(s\) status added in the source with a value for existing rows/);
      expect(described.alerts.filter((alert) => alert.kind === 'Reseed').map((alert) => alert.message)).toEqual([expect.stringContaining('[public].[orders]: column(s) status')]);
      const [reseed] = await pass(registry, at(7));
      expect(reseed).toMatchObject({ kind: 'seed' });
      await loaded(registry, reseed, at(8), '130');
      expect(await tableState(registry, replicationId, table)).toMatchObject({ phase: 'Tracking', lastVersion: '130', lastError: null });
      await stopRegistry(registry);
    });
  });

  describe('a change probe that finds changes', () => {
    it('gets the changed table its cycle at once, not at the next tick, and the follow-up of a cycle that moved a whole batch too', async () => {
      const database = newDatabase();
      const table = '[public].[orders]';
      // Seeded by a registry without the timer, on the real clock: the table is Tracking at version 100.
      const seeder = await startRegistry(database);
      await addReplication(seeder, 'probed', [table]);
      await seedAll(seeder, new Date());
      await stopRegistry(seeder);
      await publishedWork();

      const probes: ChangedTablesRequest[] = [];
      const extractor = answerAsExtractor<ChangedTablesRequest>(Subjects.extractorChangedTables, probes, (request) => ({
        changed: request.tables.map((probed) => probed.tableName),
        unknown: [],
        schemaStamps: {},
      }));
      try {
        await nats.flush();
        // A pass at start, the next a minute later; an idle table the probe has not answered for waits an hour; one probe
        // only (the next may start ten minutes later), so that its answer cannot be what plans the follow-up cycle below.
        const registry = await startRegistry(database, undefined, {
          SCHEDULER_ENABLED: 'true',
          SCHEDULER_TICK_MS: '60000',
          IDLE_CYCLE_DELAY_MS: '3600000',
          CHANGE_PROBE_INTERVAL_MS: '600000',
        });
        const work = await workPublishedWithin(15_000, 'a change cycle planned right after the probe answered');
        expect(probes.map((probe) => probe.tables.map((probed) => probed.tableName))).toEqual([[table]]);
        expect(work.map(workKey)).toEqual([`${work[0]?.replicationId ?? ''} ${table} changes`]);

        // A cycle that moved a whole batch (a backlog is left) is followed by the next at once, without waiting for a
        // probe, not a minute later; one that moved fewer rows is the probe's to judge (work-planner.spec.ts).
        const first = work[0];
        await loaded(registry, first, new Date(), '200', 500_000);
        const next = await workPublishedWithin(15_000, 'the follow-up cycle of a cycle that moved a whole batch');
        expect(next.map(workKey)).toEqual([workKey(first)]);
        expect(next[0]?.fromVersion).toBe('200');
        await stopRegistry(registry);
      } finally {
        extractor.unsubscribe();
      }
    });
  });

  describe('tables that appear in the source after Create', () => {
    const definition = (name: string): TableDefinition => ({
      table: { schema: 'public', name },
      columns: [{ name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false }],
      primaryKey: ['id'],
      estimatedRows: 0,
    });

    it('lists the source again every TABLE_DISCOVERY_SECONDS without an Alter, seeds a new table and says so in a TableAdded alert', async () => {
      const registry = await startRegistry(newDatabase(), undefined, { TABLE_DISCOVERY_SECONDS: '120' });
      const replicationId = await addReplication(registry, 'late-tables', ['[public].[orders]']);
      const source = [definition('orders')];
      const requests: unknown[] = [];
      const subscription = answerAsExtractor(Subjects.extractorDiscoverTables, requests, () => ({ tables: source }));
      try {
        await pass(registry, at(0));
        // Created in the source after Create: not seen before the interval has passed since the last listing.
        source.push(definition('late_table'));
        await pass(registry, at(60));
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(requests).toEqual([]);
        expect((await registry.state.listTables([replicationId])).map((table) => table.tableName)).toEqual(['[public].[orders]']);
        await registry.scheduler.runOnce(at(121));
        await waitUntil(async () => (await registry.state.listTables([replicationId])).some((table) => table.tableName === '[public].[late_table]'), 10000, 'the new table registered');
        expect(requests).toEqual([{ replicationId }]);
        await waitUntil(async () => (await registry.alerts.listByReplication(replicationId)).some((alert) => alert.kind === 'TableAdded'), 10000, 'a TableAdded alert');
        const added = (await registry.alerts.listByReplication(replicationId)).filter((alert) => alert.kind === 'TableAdded');
        expect(added.map((alert) => alert.message)).toEqual(['a new source table was found and is seeded: [public].[late_table]']);
        // The next passes seed it.
        const work = await pass(registry, at(122));
        expect(work.map(workKey)).toContain(`${replicationId} [public].[late_table] seed`);
        // A listing that finds nothing new raises nothing.
        await registry.scheduler.runOnce(at(250));
        await waitUntil(async () => requests.length === 2, 10000, 'the second listing');
        expect((await registry.alerts.listByReplication(replicationId)).filter((alert) => alert.kind === 'TableAdded')).toHaveLength(1);
      } finally {
        subscription.unsubscribe();
      }
    });
  });

  describe('a table removed from TablesToInclude while its change cycle is in flight', () => {
    it('leaves before its source is released: the cycle, failing on the released source and asking for a reseed, moves nothing and no seed tracks it again', async () => {
      const registry = await startRegistry(newDatabase());
      const [orders, customers] = ['[public].[orders]', '[public].[customers]'];
      const replicationId = await addReplication(registry, 'removing', [orders, customers]);
      await seedAll(registry, at(0));
      const cycles = await pass(registry, at(5));
      const cycle = cycles.find((work) => tableKey(work.table) === customers);
      if (!cycle) throw new Error(`no change cycle of ${customers}: ${cycles.map(workKey).join(', ')}`);

      const definitionOf = (name: string): TableDefinition => ({
        table: { schema: 'public', name },
        columns: [{ name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false }],
        primaryKey: ['id'],
        estimatedRows: 0,
      });
      const discoveries = answerAsExtractor(Subjects.extractorDiscoverTables, [], () => ({ tables: [definitionOf('orders'), definitionOf('customers')] }));
      /** What the registry did while the extractor released the source: the cycle's report and a pass in between. */
      const duringRelease: { request: ReleaseTablesRequest; stateOfCycle: string | null; issued: string[] }[] = [];
      const releases = nats.subscribe(Subjects.extractorReleaseTables, {
        callback: (error, message) => {
          if (error) return;
          void (async () => {
            const packet = message.json<NestRequestPacket<ReleaseTablesRequest>>();
            // The cycle's read now finds the table untracked and fails asking for a reseed (extract.service.ts, reseedReason).
            await failed(registry, cycle, at(7), { retryable: true, reseed: true, scope: 'table', message: `${customers} is not tracked` });
            const state = (await registry.state.listTables([replicationId], { includeLeaving: true })).find((table) => table.tableName === customers);
            const issued = await registry.scheduler.runOnce(at(8));
            duringRelease.push({ request: packet.data, stateOfCycle: state?.phase ?? null, issued: issued.map((order) => `${order.tableName} ${order.kind}`) });
            const reply: NestReplyPacket = { id: packet.id, response: rpcOk({ released: packet.data.tables.map(tableKey) }), isDisposed: true };
            message.respond(JSON.stringify(reply));
          })();
        },
      });
      try {
        await nats.flush();
        // As the Alter stores it (the Alter checks the tables against a source this test does not have).
        const stored = await registry.replications.get(replicationId);
        if (!stored) throw new Error('the replication is gone');
        const change = { config: { ...stored.config, tablesToInclude: [orders] }, status: stored.status, lastError: null, changedFields: ['tablesToInclude'] };
        expect(await registry.replications.update(replicationId, stored.version, change, author)).not.toBeNull();
        await registry.scheduler.runOnce(at(6));
        await waitUntil(async () => !(await registry.state.listTables([replicationId], { includeLeaving: true })).some((table) => table.tableName === customers), 10000, `${customers} forgotten`);
        expect(duringRelease).toEqual([
          {
            request: { replicationId, tables: [{ schema: 'public', name: 'customers' }], forgetStagingRecords: [{ schema: 'public', name: 'customers' }] },
            stateOfCycle: 'Tracking',
            issued: [],
          },
        ]);
        expect(cancellations.map((cancelled) => cancelled.workId)).toContain(cycle.workId);
        expect((await publishedWork()).filter((work) => tableKey(work.table) === customers)).toEqual([]);
      } finally {
        discoveries.unsubscribe();
        releases.unsubscribe();
        await stopRegistry(registry);
      }
    });
  });

  describe('Delete whose source could not be cleaned', () => {
    it('stays Deleting and is finished by the scheduler a minute later, once the source can be reached', async () => {
      const registry = await startRegistry(newDatabase());
      const table = '[public].[orders]';
      const replicationId = await addReplication(registry, 'deleted', [table]);
      // No extractor answers: the Delete request cannot remove the triggers now.
      expect(await registry.api.delete(replicationId)).toEqual({ ok: true, value: null });
      expect(await describeReplication(registry, replicationId)).toMatchObject({
        status: 'Deleting',
        lastError: expect.stringMatching(/^could not remove change tracking from the source yet/) as unknown,
      });
      expect(await pass(registry, at(0))).toEqual([]);

      const released: ReleaseTablesRequest[] = [];
      const extractor = answerAsExtractor<ReleaseTablesRequest>(Subjects.extractorReleaseTables, released, (request) => ({ released: request.tables.map(tableKey) }));
      try {
        await nats.flush();
        await pass(registry, at(1));
        expect(released).toEqual([]);
        await pass(registry, at(61));
        expect(released).toEqual([{ replicationId, tables: [{ schema: 'public', name: 'orders' }], forgetAllStagingRecords: true }]);
        expect(await registry.replications.get(replicationId)).toBeNull();
      } finally {
        extractor.unsubscribe();
        await stopRegistry(registry);
      }
    });
  });

  describe('IsLogErrorsOnly', () => {
    it('logs one line per loaded change cycle and table for a detailed replication, none for an errors-only one', async () => {
      const lines: Record<string, unknown>[] = [];
      const registry = await startRegistry(newDatabase(), lines);
      const detailed = await addReplication(registry, 'detailed', ['[public].[a]'], { isLogErrorsOnly: false });
      const quiet = await addReplication(registry, 'quiet', ['[public].[a]'], { isLogErrorsOnly: true });
      // A new registry serializes until each replication completed a run: the seeds come one after the other.
      await seedAll(registry, at(0));
      await seedAll(registry, at(2));
      const cycles = await pass(registry, at(5));
      expect(cycles).toHaveLength(2);
      for (const cycle of cycles) await loaded(registry, cycle, at(7), '123', 42);

      const cycleLines = lines.filter((line) => line['msg'] === 'change cycle loaded');
      expect(cycleLines).toEqual([
        expect.objectContaining({ level: 'info', replicationId: detailed, table: '[public].[a]', rows: 42, fromVersion: '100', toVersion: '123', durationMs: 2000 }),
      ]);
      expect(lines.filter((line) => line['msg'] === 'seed loaded').map((line) => line['replicationId'])).toEqual([detailed]);
      expect(lines.some((line) => line['replicationId'] === quiet && (line['level'] === 'info' || line['level'] === 'debug'))).toBe(false);
      await stopRegistry(registry);
    });
  });

  describe('daily window across midnight', () => {
    let registry: Registry;
    let replicationId = '';
    const DAY = Date.UTC(2030, 0, 10);
    const time = (day: number, hours: number, minutes: number, seconds = 0) => new Date(DAY + day * 24 * HOUR * 1000 + ((hours * 60 + minutes) * 60 + seconds) * 1000);

    beforeAll(async () => {
      registry = await startRegistry(newDatabase());
      replicationId = await addReplication(registry, 'nightly', ['[public].[t]'], {
        scheduleIntervalTimeFrom: '10:00:00 PM',
        scheduleIntervalTimeTo: '02:00:00 AM',
      });
      await seedAll(registry, time(0, 22, 0));
    });

    async function cycleAt(now: Date): Promise<void> {
      const work = await pass(registry, now);
      expect(work).toEqual([expect.objectContaining({ replicationId, kind: 'changes' })]);
      await loaded(registry, work[0], new Date(now.getTime() + 5000), '100');
    }

    it('runs change cycles only between 10:00 PM and 02:00 AM UTC', async () => {
      await cycleAt(time(0, 23, 30));
      await cycleAt(time(1, 1, 30));
      expect(await pass(registry, time(1, 2, 0, 1))).toEqual([]);
      expect(await pass(registry, time(1, 12, 0))).toEqual([]);
      expect(await pass(registry, time(1, 21, 59))).toEqual([]);
      expect(await pass(registry, time(1, 21, 59, 59))).toEqual([]);
      await cycleAt(time(1, 22, 0));
      await cycleAt(time(1, 23, 30));
      await cycleAt(time(2, 0, 0));
      await cycleAt(time(2, 1, 30));
      expect(await pass(registry, time(2, 2, 30))).toEqual([]);
    });
  });
});

function workKey(work: ExtractRequested): string {
  return `${work.replicationId} [${work.table.schema}].[${work.table.name}] ${work.kind}`;
}

/** Core-NATS events are published as Nest event packets ({ pattern, data }). */
function nestEventData(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'data' in value ? (value).data : value;
}
