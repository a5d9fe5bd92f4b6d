import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { PipelineSubjects, Subjects, parseTableKey, type ExtractRequested } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { NatsRequester, PipelinePublisher } from '@svc/messaging';
import {
  PipelineStateRepository,
  ServiceConfigurationRepository,
  type SchedulableReplication,
  type ServiceConfigurationStore,
} from '@svc/registry-store';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { REGISTRY_POOL } from '../store/store.module';
import { LeaderLock } from './leader-lock';
import { selectTables } from './table-selection';
import { planWork, type WorkOrder } from './work-planner';

/**
 * Turns schedules into work: discovers each replication's tables, plans what is due, claims it in the
 * control database and publishes it for the extractors. Only the instance holding the leader lock runs.
 */
@Injectable()
export class PipelineScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  private lastStaleSweep = 0;
  private readonly discovering = new Map<string, Promise<void>>();
  /** When discovery of a replication may be tried again after a failure. */
  private readonly discoveryRetryAt = new Map<string, number>();
  private readonly lock: LeaderLock;

  constructor(
    private readonly state: PipelineStateRepository,
    @Inject(ServiceConfigurationRepository) private readonly service: ServiceConfigurationStore,
    private readonly requester: NatsRequester,
    private readonly publisher: PipelinePublisher,
    private readonly logger: JsonLogger,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(REGISTRY_POOL) pool: Pool,
  ) {
    this.lock = new LeaderLock(pool);
  }

  onApplicationBootstrap(): void {
    if (this.config.pipeline.enabled) this.schedule(0);
  }

  /** Before the control database's pool closes (onApplicationShutdown), so the leader lock's connection is returned. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.running) await new Promise((done) => setTimeout(done, 20));
    await Promise.allSettled([...this.discovering.values()]);
    await this.lock.release();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  private async tick(): Promise<void> {
    this.running = true;
    try {
      if (await this.lock.tryAcquire()) await this.runOnce(new Date());
    } catch (error) {
      this.logger.error('scheduler tick failed', { error });
    } finally {
      this.running = false;
      this.schedule(this.lock.held ? this.config.pipeline.tickMs : 2000);
    }
  }

  /** One scheduling pass (public for tests that drive the clock). */
  async runOnce(now: Date): Promise<WorkOrder[]> {
    const settings = await this.service.get();
    if (settings.serviceStopped) return [];
    const replications = (await this.state.listReplications()).filter((r) => r.status === 'Running' && r.config.dataReplication);
    for (const replication of replications) {
      const id = replication.replicationId;
      const due = (this.discoveryRetryAt.get(id) ?? 0) <= now.getTime();
      if (replication.discoveredConfigVersion !== replication.configVersion && due && !this.discovering.has(id)) {
        this.discovering.set(id, this.discover(replication).finally(() => this.discovering.delete(id)));
      }
    }
    const tables = await this.state.listTables(replications.map((r) => r.replicationId));
    const orders = planWork(now, replications, tables, { idleCycleDelayMs: this.config.pipeline.idleCycleDelayMs, minuteMs: this.config.pipeline.minuteMs });
    const issued: WorkOrder[] = [];
    for (const order of orders) {
      if (await this.issue(order, now)) issued.push(order);
    }
    if (now.getTime() - this.lastStaleSweep > 30000) {
      this.lastStaleSweep = now.getTime();
      const released = await this.state.releaseStale(new Date(now.getTime() - this.config.pipeline.staleWorkMs));
      if (released.length) this.logger.warn('released work that did not finish in time', { tables: released });
    }
    return issued;
  }

  private async issue(order: WorkOrder, now: Date): Promise<boolean> {
    const table = parseTableKey(order.tableName);
    if (!table) return false;
    const workId = randomUUID();
    if (!(await this.state.claim(order.replicationId, order.tableName, workId, order.kind, now))) return false;
    const request: ExtractRequested = {
      workId,
      replicationId: order.replicationId,
      table,
      kind: order.kind,
      track: order.track,
      ...(order.fromVersion !== undefined && { fromVersion: order.fromVersion }),
      batchLimit: order.batchLimit,
      requestedAt: now.toISOString(),
    };
    try {
      await this.publisher.publish(PipelineSubjects.extractRequested, request, workId);
      return true;
    } catch (error) {
      await this.state.failWork(order.replicationId, order.tableName, workId, 'could not queue the work; retrying', null, new Date());
      this.logger.error('could not publish work', { replicationId: order.replicationId, table: order.tableName, error });
      return false;
    }
  }

  /** Asks an extractor for the source's tables and registers those the replication selects. */
  private async discover(replication: SchedulableReplication): Promise<void> {
    try {
      const reply = await this.requester.request(Subjects.extractorDiscoverTables, { replicationId: replication.replicationId }, 60000);
      if (!reply.ok) throw new Error(reply.error.messages.join('; '));
      if (this.stopped) return;
      const selected = selectTables(replication.config, reply.value.tables);
      await this.state.registerTables(replication.replicationId, replication.configVersion, selected);
      this.logger.info('tables discovered', { replicationId: replication.replicationId, tables: selected.length });
    } catch (error) {
      if (this.stopped) return;
      this.discoveryRetryAt.set(replication.replicationId, Date.now() + 5000);
      this.logger.warn('table discovery failed; retrying in 5 s', { replicationId: replication.replicationId, error });
    }
  }
}
