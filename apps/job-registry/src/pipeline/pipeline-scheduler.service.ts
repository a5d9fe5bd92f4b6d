import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { PipelineSubjects, Subjects, guardExtractRequested, parseTableKey, type ExtractRequested } from '@svc/contracts';
import { JsonLogger, replicationLog } from '@svc/logging';
import { MessagingError, NatsRequester, PipelinePublisher } from '@svc/messaging';
import {
  PipelineStateRepository,
  ServiceConfigurationRepository,
  WarehouseClaimRepository,
  type ClaimConflict,
  type DiscoveredTable,
  type SchedulableReplication,
  type ServiceConfigurationStore,
  type TableRuntimeState,
  type WarehouseClaimStore,
} from '@svc/registry-store';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { REGISTRY_POOL } from '../store/store.module';
import { AlertsService } from './alerts.service';
import { ChangeProbes } from './change-probes';
import { SchedulerWake } from './scheduler-wake';
import { ctTimeoutMinutes, levelAfterCancel, overdueVerdict, type OverdueSettings } from './ct-timeout';
import { LeaderLock } from './leader-lock';
import { PublishOutage } from './publish-outage';
import { ReplicationRuns } from './replication-runs';
import { PipelineLifecycle } from './replication-lifecycle.service';
import { retentionInDanger } from './retention-danger';
import { admitWithoutCollisions, type RefusedTable } from './table-collisions';
import { selectTables } from './table-selection';
import { claimedElsewhereReason, warehouseClaimsOf, warehouseIdentity } from './warehouse-claims';
import { workIsAlive } from './work-liveness';
import { BEFORE_WORK_PUBLISH, type BeforeWorkPublish } from './work-publication';
import { planWork, unservedTables, type PlanningSettings, type WorkOrder } from './work-planner';
import { workUnits, type GroupingSettings } from './work-units';
import { SourceWalHeld } from '../metrics/source-wal-held';

/** How often the removal of a Deleting replication's change tracking is tried again. */
const DELETE_RETRY_MS = 60000;
/** A change cycle without a timeout (after three cancels) is released after a day: a lost message must not stop a table. */
const UNLIMITED_CYCLE_MS = 24 * 3600000;
/**
 * A table no probe has judged at its new watermark waits this many probe intervals for one (5 s at the default 250 ms)
 * before it gets a cycle anyway: the probe takes a pass over every idle table, longer on a busy source.
 */
const PENDING_PROBE_INTERVALS = 20;
/** Passes asked for before the tick (wake) start at least this long after the last one ended (or a tick, if shorter). */
const WAKE_GAP_MS = 50;

/**
 * Turns schedules into work: discovers each replication's tables, cancels change cycles past their
 * timeout, decides which replications run (serialization), plans what is due, claims it in the control
 * database and publishes it for the extractors. Only the instance holding the leader lock runs.
 */
@Injectable()
export class PipelineScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** A pass was asked for before the tick (wake): the next one runs as soon as the current one, if any, ends. */
  private wakePending = false;
  /** When the last pass ended: passes asked for early still leave WAKE_GAP_MS between them. */
  private lastPassEndedAt = 0;
  private stopped = false;
  /**
   * Set when this instance starts leading or the service resumes: replications are serialized for a while.
   * True from construction: the first pass of a new instance (after tick's first lock, or a test's runOnce) is a restart.
   */
  private restarted = true;
  private serviceWasStopped = false;
  private readonly discovering = new Map<string, Promise<void>>();
  /** When discovery of a replication may be tried again after a failure. */
  private readonly discoveryRetryAt = new Map<string, number>();
  /** When each replication's source was last listed by this instance: listed again every TABLE_DISCOVERY_SECONDS. */
  private readonly discoveredAt = new Map<string, number>();
  private readonly collisionsAlerted = new Set<string>();
  private readonly deleteRetryAt = new Map<string, number>();
  private readonly lock: LeaderLock;
  private readonly runs: ReplicationRuns;
  private readonly probes: ChangeProbes;
  /** When a replication's change probe may be tried again after a failure. */
  private readonly probeRetryAt = new Map<string, number>();
  private readonly publishOutage: PublishOutage;
  /** While no extractor has answered a change probe yet (the services are starting): a probe nobody answers is no news. */
  private extractorSeen = false;

  constructor(
    private readonly state: PipelineStateRepository,
    @Inject(ServiceConfigurationRepository) private readonly service: ServiceConfigurationStore,
    private readonly requester: NatsRequester,
    private readonly publisher: PipelinePublisher,
    private readonly lifecycle: PipelineLifecycle,
    private readonly alerts: AlertsService,
    private readonly logger: JsonLogger,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(REGISTRY_POOL) pool: Pool,
    @Inject(BEFORE_WORK_PUBLISH) private readonly beforePublish: BeforeWorkPublish,
    @Inject(WarehouseClaimRepository) private readonly claims: WarehouseClaimStore,
    schedulerWake: SchedulerWake,
    walHeld: SourceWalHeld,
  ) {
    schedulerWake.listen(() => this.wake());
    this.publishOutage = new PublishOutage(logger);
    this.lock = new LeaderLock(pool);
    this.runs = new ReplicationRuns(config.pipeline.minuteMs);
    this.probes = new ChangeProbes(async (request) => {
      const reply = await this.requester.request(Subjects.extractorChangedTables, request, 30000);
      this.extractorSeen = true;
      if (!reply.ok) throw new Error(reply.error.messages.join('; '));
      walHeld.record(request.replicationId, reply.value.walHeldBytes);
      return reply.value;
    }, { probeIntervalMs: config.pipeline.changeProbeIntervalMs, schemaStampIntervalMs: config.pipeline.schemaStampIntervalMs });
  }

  onApplicationBootstrap(): void {
    if (this.config.pipeline.enabled) this.schedule(0);
  }

  /** Before the control database's pool closes (onApplicationShutdown), so the leader lock's connection is returned. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.running) await new Promise((done) => setTimeout(done, 20));
    // Probes are not waited for: their answers only feed this instance's next plans.
    await Promise.allSettled([...this.discovering.values()]);
    await this.lock.release();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  /**
   * Runs a pass soon instead of at the next tick: a probe found tables with changes, or a table's next cycle became due
   * (SchedulerWake), and cycles, planned by a pass, need not wait up to a tick. One pass however many ask meanwhile,
   * and at least WAKE_GAP_MS after the last: a burst of loaded batches does not turn into passes back to back.
   */
  private wake(): void {
    // Only the leading instance plans, and only with its timer on (tests drive runOnce themselves with it off).
    if (!this.config.pipeline.enabled || !this.lock.held || this.stopped || this.wakePending) return;
    this.wakePending = true;
    // A pass in progress schedules the next one early when it ends (tick's finally).
    if (this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(this.wakeDelayMs());
  }

  private wakeDelayMs(): number {
    const gap = Math.min(WAKE_GAP_MS, this.config.pipeline.tickMs);
    return Math.max(0, this.lastPassEndedAt + gap - Date.now());
  }

  private async tick(): Promise<void> {
    this.running = true;
    this.wakePending = false;
    try {
      const wasLeading = this.lock.held;
      if (await this.lock.tryAcquire()) {
        if (!wasLeading) this.restarted = true;
        await this.runOnce(new Date());
      }
    } catch (error) {
      this.logger.error('scheduler tick failed', { error });
    } finally {
      this.running = false;
      this.lastPassEndedAt = Date.now();
      this.schedule(!this.lock.held ? 2000 : this.wakePending ? this.wakeDelayMs() : this.config.pipeline.tickMs);
    }
  }

  /** One scheduling pass at `now` (public so that tests drive the clock). */
  async runOnce(now: Date): Promise<WorkOrder[]> {
    const settings = await this.service.get();
    const replications = await this.state.listReplications();
    await this.finishDeletes(now, replications.filter((replication) => replication.status === 'Deleting'));
    // Before anything else, even with the service stopped: work in flight finishes whatever happens next.
    await this.publishUnconfirmedClaims(now);
    if (settings.serviceStopped) {
      this.serviceWasStopped = true;
      return [];
    }
    const live = replications.filter((replication) => replication.status !== 'Deleting');
    const eligible = live.filter((replication) => replication.status === 'Running' && replication.config.dataReplication);
    if (this.restarted || this.serviceWasStopped) {
      this.restarted = false;
      this.serviceWasStopped = false;
      this.runs.beginAutoSerialization(eligible.map((replication) => replication.replicationId));
    }
    this.startDiscoveries(now, eligible);

    const liveIds = live.map((replication) => replication.replicationId);
    let tables = await this.state.listTables(liveIds);
    if (await this.enforceTimeouts(now, live, tables)) tables = await this.state.listTables(liveIds);
    await this.watchRetention(now, live, tables);
    this.startChangeProbes(now, eligible, tables);

    const issued: WorkOrder[] = [];
    const tableOf = new Map(tables.map((table) => [`${table.replicationId}\n${table.tableName}`, table]));
    for (const unit of workUnits(this.plan(now, eligible, tables, settings), (order) => tableOf.get(`${order.replicationId}\n${order.tableName}`), this.grouping())) {
      const outcome = await this.issue(unit, now);
      if (outcome.length > 0) issued.push(...outcome);
      // The bus did not take the work: the rest of the pass would fail the same way, each claim released again.
      else if (outcome === UNPUBLISHED) break;
    }
    return issued;
  }

  private plan(now: Date, eligible: SchedulableReplication[], tables: TableRuntimeState[], settings: Awaited<ReturnType<ServiceConfigurationStore['get']>>): WorkOrder[] {
    const planning: PlanningSettings = {
      idleCycleDelayMs: this.config.pipeline.idleCycleDelayMs,
      minuteMs: this.config.pipeline.minuteMs,
      idleRecheckMs: this.config.pipeline.idleRecheckMs,
      changeVerdict: (table) => this.probes.verdict(table),
      pendingProbeMs: PENDING_PROBE_INTERVALS * this.config.pipeline.changeProbeIntervalMs,
      grouping: this.grouping(),
    };
    const byId = new Map(eligible.map((replication) => [replication.replicationId, replication]));
    const tablesOf = (id: string) => tables.filter((table) => table.replicationId === id);
    const ordersOf = (id: string, runStartedAt: Date | null): WorkOrder[] => {
      const replication = byId.get(id);
      return replication ? planWork(now, [replication], unservedTables(tablesOf(id), runStartedAt), planning) : [];
    };
    const { admitted } = this.runs.admit(now, {
      candidates: eligible.map((replication) => ({
        replicationId: replication.replicationId,
        serializedTimeoutMinutes: replication.config.serializedCtProcessTimeoutInMinutes,
        autoSerializedTimeoutMinutes: replication.config.autoSerializedCtProcessTimeoutInMinutes,
        // Work without a sign of life (no worker took it, or its worker hangs) does not keep the others waiting.
        busy: tablesOf(replication.replicationId).some((table) => workIsAlive(now, table, this.config.pipeline.stalledWorkMs)),
      })),
      hasDueWork: (id, since) => ordersOf(id, since).length > 0,
      service: settings,
    });
    return [...admitted].flatMap(([id, runStartedAt]) => ordersOf(id, runStartedAt));
  }

  private grouping(): GroupingSettings {
    return { maxTables: this.config.pipeline.workGroupTables, maxRows: this.config.pipeline.workGroupMaxRows };
  }

  /** Cancels change cycles past CtProcessTimeoutInMinutes and releases stale work; true when anything moved. */
  private async enforceTimeouts(now: Date, live: SchedulableReplication[], tables: TableRuntimeState[]): Promise<boolean> {
    const byId = new Map(live.map((replication) => [replication.replicationId, replication]));
    const settings: OverdueSettings = { minuteMs: this.config.pipeline.minuteMs, staleWorkMs: this.config.pipeline.staleWorkMs, unlimitedCycleMs: UNLIMITED_CYCLE_MS };
    let moved = false;
    for (const table of tables) {
      const replication = byId.get(table.replicationId);
      if (!replication || table.inFlightWorkId === null || table.inFlightKind === null || table.inFlightSince === null) continue;
      const work = { kind: table.inFlightKind, since: table.inFlightSince, progressAt: table.updatedAt, ctTimeoutLevel: table.ctTimeoutLevel };
      const verdict = overdueVerdict(now, work, replication.config.ctProcessTimeoutInMinutes, settings);
      if (verdict === null) continue;
      const workId = table.inFlightWorkId;
      const released = { replicationId: table.replicationId, tableName: table.tableName, workId };
      if (verdict === 'cancel') {
        const limit = ctTimeoutMinutes(replication.config.ctProcessTimeoutInMinutes, table.ctTimeoutLevel);
        const next = ctTimeoutMinutes(replication.config.ctProcessTimeoutInMinutes, levelAfterCancel(table.ctTimeoutLevel));
        const reason = `change cycle cancelled after ${String(limit)} minutes (CtProcessTimeoutInMinutes); the next one gets ${next === null ? 'no limit' : `${String(next)} minutes`}`;
        if (!(await this.state.cancelWork(table.replicationId, table.tableName, workId, reason, now))) continue;
        this.lifecycle.cancel([released], reason);
        this.logger.warn('change cycle cancelled', { replicationId: table.replicationId, table: table.tableName, reason });
      } else {
        const reason = 'work did not finish in time; retried';
        if (!(await this.state.releaseWork(table.replicationId, table.tableName, workId, reason, now))) continue;
        this.lifecycle.cancel([released], reason);
        this.logger.warn('released work that did not finish in time', { replicationId: table.replicationId, table: table.tableName, kind: table.inFlightKind });
      }
      moved = true;
    }
    return moved;
  }

  /** RetentionDanger: a tracked table whose watermark has not moved for most of the retention period. */
  private async watchRetention(now: Date, live: SchedulableReplication[], tables: TableRuntimeState[]): Promise<void> {
    const byId = new Map(live.map((replication) => [replication.replicationId, replication]));
    for (const table of tables) {
      const replication = byId.get(table.replicationId);
      if (!replication) continue;
      const retention = replication.config.source.changeTrackingRetentionPeriod;
      if (!retentionInDanger(now, table, retention)) continue;
      await this.state.markRetentionAlerted(table.replicationId, table.tableName, now);
      const since = table.watermarkAt?.toISOString() ?? 'never';
      await this.alerts.raise({
        replicationId: table.replicationId,
        kind: 'RetentionDanger',
        message: `${table.tableName}: changes not consumed since ${since}; the source purges them after ${retention} and the table would have to be reseeded`,
        tableName: table.tableName,
      });
    }
  }

  /**
   * Claims the unit's tables and publishes their work: one table's, or a group's (small changes of several tables that
   * travel together, each member still its own claimed work). The message is stored with each claim (an outbox) and
   * marked published once JetStream confirmed it: a scheduler that dies in between leaves claims the next pass of
   * whichever instance leads publishes again, each as one table's work (publishUnconfirmedClaims). The orders issued;
   * UNPUBLISHED when the bus refused the message.
   */
  private async issue(unit: readonly WorkOrder[], now: Date): Promise<WorkOrder[]> {
    const groupId = unit.length > 1 ? randomUUID() : undefined;
    const claimed = groupId === undefined ? await this.claimAlone(unit, now) : await this.claimGroup(unit, now, groupId);
    const [only] = claimed;
    if (only === undefined) return [];
    try {
      for (const { request } of claimed) await this.beforePublish(request);
      if (claimed.length === 1 || groupId === undefined) await this.publisher.publish(PipelineSubjects.extractRequested, only.request, only.request.workId);
      else await this.publisher.publish(PipelineSubjects.extractRequested, { workId: groupId, group: claimed.map(({ request }) => request) }, groupId);
    } catch (error) {
      const released = new Date();
      for (const { order, request } of claimed) await this.state.releaseWork(order.replicationId, order.tableName, request.workId, 'could not queue the work; retrying', released);
      this.publishOutage.failed(only.order, error);
      return UNPUBLISHED;
    }
    this.publishOutage.succeeded();
    // Should this fail, the next pass publishes the claims again; JetStream drops a duplicate (message id = work id).
    await this.state.markPublishedMany(
      claimed.map(({ order, request }) => ({ replicationId: order.replicationId, tableName: order.tableName, workId: request.workId })),
      new Date(),
    );
    return claimed.map(({ order }) => order);
  }

  private async claimAlone(unit: readonly WorkOrder[], now: Date): Promise<ClaimedOrder[]> {
    const claimed: ClaimedOrder[] = [];
    for (const order of unit) {
      const table = parseTableKey(order.tableName);
      if (!table) continue;
      const unnumbered = requestOf(order, randomUUID(), table, now);
      const epoch = await this.state.claim(order.replicationId, order.tableName, unnumbered.workId, order.kind, now, { ...unnumbered }, order.configVersion);
      if (epoch !== null) claimed.push({ order, request: { ...unnumbered, epoch } });
    }
    return claimed;
  }

  /** A group's change cycles (workUnits: one replication, one pass, so one configuration version) claimed in one statement. */
  private async claimGroup(unit: readonly WorkOrder[], now: Date, groupId: string): Promise<ClaimedOrder[]> {
    const [first] = unit;
    if (first === undefined) return [];
    if (unit.some((order) => order.kind !== 'changes' || order.seedClose !== undefined || order.replicationId !== first.replicationId || order.configVersion !== first.configVersion)) {
      throw new Error('a group holds change cycles of one replication under one configuration version only (workUnits)');
    }
    const members = unit.flatMap((order) => {
      const table = parseTableKey(order.tableName);
      return table ? [{ order, request: requestOf(order, randomUUID(), table, now) }] : [];
    });
    const epochs = await this.state.claimChanges(
      first.replicationId,
      members.map(({ order, request }) => ({ tableName: order.tableName, workId: request.workId, request: { ...request } })),
      now,
      first.configVersion,
      groupId,
    );
    return members.flatMap(({ order, request }) => {
      const epoch = epochs.get(order.tableName);
      return epoch === undefined ? [] : [{ order, request: { ...request, epoch } }];
    });
  }

  /**
   * Claims whose message JetStream never confirmed (their scheduler died, or lost the control database,
   * between claim and publish): published again from the stored message, under the same message id, so
   * one that did reach the stream within its duplicate window is not delivered twice. Workers fence by
   * epoch and log applied batches, so even a duplicate after the window changes nothing.
   */
  private async publishUnconfirmedClaims(now: Date): Promise<void> {
    for (const claim of await this.state.unpublishedWork()) {
      const where = { replicationId: claim.replicationId, table: claim.tableName, workId: claim.workId };
      const stored = guardExtractRequested(claim.request);
      if (!stored.ok) {
        await this.state.releaseWork(claim.replicationId, claim.tableName, claim.workId, 'the stored work message was unreadable; retried', now);
        this.logger.error('released a claim whose stored work message is unreadable', { ...where, problems: stored.problems });
        continue;
      }
      try {
        await this.publisher.publish(PipelineSubjects.extractRequested, stored.value, claim.workId);
      } catch (error) {
        this.logger.warn('could not publish claimed work again; next pass retries', { ...where, error });
        continue;
      }
      await this.state.markPublished(claim.replicationId, claim.tableName, claim.workId, now);
      this.logger.warn('published work claimed but never confirmed (a scheduler stopped between claim and publish)', where);
    }
  }

  /** Probes each continuous replication's idle tracked tables for changes (ChangeProbes), in the background. */
  private startChangeProbes(now: Date, eligible: SchedulableReplication[], tables: TableRuntimeState[]): void {
    for (const replication of eligible) {
      const id = replication.replicationId;
      if (!replication.config.isContinuous || (this.probeRetryAt.get(id) ?? 0) > now.getTime()) continue;
      // Runs in the background (its errors go to the callback): the next pass plans with its answers, at once when it
      // found changes.
      void this.probes
        .start(
          id,
          tables.filter((table) => table.replicationId === id),
          (error) => {
            // An old "unchanged" must not hold back a table while the source cannot be probed.
            this.probes.forget(id);
            this.probeRetryAt.set(id, Date.now() + 5000);
            if (this.stopped) return;
            // At start the registry often probes before any extractor listens: said quietly until one has answered once.
            const noExtractorYet = !this.extractorSeen && error instanceof MessagingError && error.kind === 'NoResponders';
            const log = replicationLog(this.logger, replication.config);
            if (noExtractorYet) log.debug('change probe: no extractor answers yet (starting?); idle tables are cycled in turn meanwhile', { replicationId: id });
            else log.warn('change probe failed; idle tables are cycled in turn meanwhile', { replicationId: id, error });
          },
        )
        ?.then((foundChanges) => {
          if (foundChanges) this.wake();
        });
    }
  }

  /**
   * Lists a replication's source tables when its configuration changed, and again every TABLE_DISCOVERY_SECONDS, so
   * that a table created in the source after Create is found and seeded without an Alter (and one dropped is let go).
   */
  private startDiscoveries(now: Date, eligible: SchedulableReplication[]): void {
    for (const replication of eligible) {
      const id = replication.replicationId;
      const due = (this.discoveryRetryAt.get(id) ?? 0) <= now.getTime();
      const changed = replication.discoveredConfigVersion !== replication.configVersion;
      const lastListed = this.discoveredAt.get(id);
      if (!changed && lastListed === undefined) this.discoveredAt.set(id, now.getTime());
      const stale = lastListed !== undefined && now.getTime() - lastListed >= this.config.pipeline.tableDiscoveryMs;
      if ((changed || stale) && due && !this.discovering.has(id)) {
        this.discoveredAt.set(id, now.getTime());
        this.discovering.set(id, this.discover(replication, changed ? 'configuration' : 'periodic').finally(() => this.discovering.delete(id)));
      }
    }
  }

  /**
   * Asks an extractor for the source's tables and registers those the replication selects; tables it no
   * longer selects lose their change tracking in the source and their state (warehouse tables stay).
   */
  private async discover(replication: SchedulableReplication, why: 'configuration' | 'periodic'): Promise<void> {
    const log = replicationLog(this.logger, replication.config);
    try {
      const reply = await this.requester.request(Subjects.extractorDiscoverTables, { replicationId: replication.replicationId }, 60000);
      if (!reply.ok) throw new Error(reply.error.messages.join('; '));
      if (this.stopped) return;
      const known = await this.state.listTables([replication.replicationId], { includeLeaving: true });
      const admitted = admitWithoutCollisions(
        selectTables(replication.config, reply.value.tables),
        known.map((table) => table.tableName),
      );
      const { selected, claimedElsewhere } = await this.claimWarehouseTables(replication, admitted.admitted);
      await this.refuseCollidingTables(replication, [...admitted.refused, ...claimedElsewhere]);
      const kept = new Set(selected.map((table) => table.tableName.toLowerCase()));
      const removed = known.filter((table) => !kept.has(table.tableName.toLowerCase()));
      await this.lifecycle.removeTables(
        replication.replicationId,
        removed.map((table) => table.tableName),
        removed.filter((table) => table.tracked).map((table) => table.tableName),
      );
      await this.state.registerTables(replication.replicationId, replication.configVersion, selected);
      const knownNames = new Set(known.map((table) => table.tableName.toLowerCase()));
      const added = selected.filter((table) => !knownNames.has(table.tableName.toLowerCase())).map((table) => table.tableName);
      // A table that appeared in the source since the last listing (not one a changed configuration selected).
      if (why === 'periodic' && added.length > 0) await this.alerts.raise({ replicationId: replication.replicationId, kind: 'TableAdded', message: tablesAddedMessage(added) });
      if (why === 'configuration' || added.length > 0 || removed.length > 0) {
        log.info('tables discovered', { replicationId: replication.replicationId, tables: selected.length, added: added.length, removed: removed.length });
      }
    } catch (error) {
      if (this.stopped) return;
      this.discoveryRetryAt.set(replication.replicationId, Date.now() + 5000);
      log.warn('table discovery failed; retrying in 5 s', { replicationId: replication.replicationId, error });
    }
  }

  /**
   * Claims the warehouse tables of the selected tables; those another replication already writes are left out
   * (never written: a table this replication moved until now is removed from it like one no longer selected).
   */
  private async claimWarehouseTables(
    replication: SchedulableReplication,
    tables: DiscoveredTable[],
  ): Promise<{ selected: DiscoveredTable[]; claimedElsewhere: RefusedTable[] }> {
    const { warehouse } = replication.config;
    const conflicts = await this.claims.claim(replication.replicationId, warehouseIdentity(warehouse), warehouseClaimsOf(warehouse, tables));
    if (conflicts.length === 0) return { selected: tables, claimedElsewhere: [] };
    const taken = new Set(conflicts.map((conflict) => conflict.tableName.toLowerCase()));
    for (const conflict of conflicts) this.logClaimedElsewhere(replication, conflict);
    return {
      selected: tables.filter((table) => !taken.has(table.tableName.toLowerCase())),
      claimedElsewhere: conflicts.map((conflict) => ({
        tableName: conflict.tableName,
        reason: claimedElsewhereReason(conflict, conflict.ownerAccessKeyId !== null && conflict.ownerAccessKeyId === replication.ownerAccessKeyId),
      })),
    };
  }

  private logClaimedElsewhere(replication: SchedulableReplication, conflict: ClaimConflict): void {
    this.logger.warn('a table is not replicated: another replication already writes its warehouse table', {
      replicationId: replication.replicationId,
      table: conflict.tableName,
      warehouseTable: conflict.warehouseTable,
      writtenBy: conflict.replicationId,
    });
  }

  /** Tables that appeared in the source and would share a warehouse table with another: a Failure alert, once per table and process. */
  private async refuseCollidingTables(replication: SchedulableReplication, refused: RefusedTable[]): Promise<void> {
    for (const { tableName, reason } of refused) {
      const key = `${replication.replicationId}:${tableName.toLowerCase()}`;
      if (this.collisionsAlerted.has(key)) continue;
      this.collisionsAlerted.add(key);
      await this.alerts.raise({ replicationId: replication.replicationId, kind: 'Failure', message: reason, tableName });
    }
  }

  /** Replications whose Delete could not clean the source yet: tried again every minute. */
  private async finishDeletes(now: Date, deleting: SchedulableReplication[]): Promise<void> {
    for (const replication of deleting) {
      const id = replication.replicationId;
      // First sight: the Delete request itself is trying right now; the background attempt comes a minute later.
      if (!this.deleteRetryAt.has(id)) this.deleteRetryAt.set(id, now.getTime() + DELETE_RETRY_MS);
      if ((this.deleteRetryAt.get(id) ?? 0) > now.getTime()) continue;
      this.deleteRetryAt.set(id, now.getTime() + DELETE_RETRY_MS);
      try {
        await this.lifecycle.remove(id);
        this.deleteRetryAt.delete(id);
      } catch (error) {
        this.logger.warn('could not remove the change tracking of a deleted replication yet; retrying', { replicationId: id, error });
      }
    }
  }
}

/** An order whose table was claimed, with its work message (numbered by the claim's epoch). */
interface ClaimedOrder {
  order: WorkOrder;
  request: ExtractRequested;
}

/** What issue answers when the bus refused the unit's message (its claims were released). */
const UNPUBLISHED: WorkOrder[] = [];

/** The work message of an order, before its claim numbers it (the epoch). */
function requestOf(order: WorkOrder, workId: string, table: ExtractRequested['table'], now: Date): Omit<ExtractRequested, 'epoch'> {
  return {
    workId,
    replicationId: order.replicationId,
    table,
    kind: order.kind,
    track: order.track,
    ...(order.fromVersion !== undefined && { fromVersion: order.fromVersion }),
    ...(order.fromIncarnation !== undefined && { fromIncarnation: order.fromIncarnation }),
    batchLimit: order.batchLimit,
    ...(order.seedClose !== undefined && { seedClose: order.seedClose }),
    configVersion: order.configVersion,
    requestedAt: now.toISOString(),
  };
}

/** The TableAdded alert: the tables that appeared in the source, now seeded. */
export function tablesAddedMessage(tables: readonly string[]): string {
  const listed = tables.length > 10 ? `${tables.slice(0, 10).join(', ')} and ${tables.length - 10} more` : tables.join(', ');
  return `${tables.length === 1 ? 'a new source table was' : `${tables.length} new source tables were`} found and ${tables.length === 1 ? 'is' : 'are'} seeded: ${listed}`;
}
