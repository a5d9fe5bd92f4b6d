import { Inject, Injectable } from '@nestjs/common';
import { Subjects, parseTableKey, type ReleaseTablesRequest, type ReplicationConfig } from '@svc/contracts';
import { databaseIdentityOf } from '@svc/connectors';
import { JsonLogger } from '@svc/logging';
import { NatsRequester } from '@svc/messaging';
import { PipelineStateRepository, ReplicationRepository, type ReleasedWork, type ReplicationStore } from '@svc/registry-store';
import type { ReplicationLifecycle } from '../replications/replication-lifecycle';
import { AlertsService } from './alerts.service';
import { reseedReason } from './reseed-reasons';

/** How long the extractor may take to remove a replication's triggers and change tables (background retries). */
const RELEASE_TIMEOUT_MS = 60000;

/** Carries stored changes of a replication over to its running job (see ReplicationLifecycle). */
@Injectable()
export class PipelineLifecycle implements ReplicationLifecycle {
  constructor(
    private readonly state: PipelineStateRepository,
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
    private readonly requester: NatsRequester,
    private readonly alerts: AlertsService,
    private readonly logger: JsonLogger,
  ) {}

  async altered(replicationId: string, before: ReplicationConfig, after: ReplicationConfig, changedFields: string[]): Promise<void> {
    const reason = reseedReason(before, after, changedFields);
    if (reason === null) return;
    const released = await this.state.reseedAll(replicationId, reason, new Date());
    this.cancel(released, reason);
    await this.alerts.raise({ replicationId, kind: 'Reseed', message: reason });
  }

  /** One table starts over from a new seed, with a Reseed alert saying why (a repair too large to do key by key). */
  async reseedTable(replicationId: string, tableName: string, reason: string): Promise<void> {
    const released = await this.state.reseedAll(replicationId, reason, new Date(), tableName);
    this.cancel(released, reason);
    await this.alerts.raise({ replicationId, kind: 'Reseed', message: `${tableName} is reseeded: ${reason}`, tableName });
  }

  async resumed(replicationId: string): Promise<void> {
    await this.state.resumeTables(replicationId, new Date());
  }

  async remove(replicationId: string, timeoutMs = RELEASE_TIMEOUT_MS): Promise<void> {
    const tables = await this.state.listTables([replicationId], { includeLeaving: true });
    this.cancel(await this.state.detachTables(replicationId, null), 'the replication is being deleted');
    // A table that ever got work may have fences and seed records in staging: they go too.
    const staged = tables.some((table) => table.tracked || table.phase !== 'Pending' || table.lastSeededAt !== null);
    await this.releaseFromSource(replicationId, tables.filter((table) => table.tracked).map((table) => table.tableName), timeoutMs, staged ? { forgetAllStagingRecords: true } : {});
    await this.replications.delete(replicationId);
    this.logger.info('replication deleted', { replicationId, tables: tables.length });
  }

  /**
   * Tables dropped from TablesToInclude: tracking removed from the source, state forgotten, warehouse tables kept. The
   * tables get no work from the moment they leave (detachTables): a change read of one failing on the released source
   * would otherwise reseed it, and the seed enable tracking again. Their rows stay until the source is released, so a
   * release that fails is asked again by the next discovery.
   */
  async removeTables(replicationId: string, tableNames: string[], trackedNames: string[]): Promise<void> {
    if (tableNames.length === 0) return;
    this.cancel(await this.state.detachTables(replicationId, tableNames), 'the table was removed from TablesToInclude');
    await this.releaseFromSource(replicationId, trackedNames, RELEASE_TIMEOUT_MS, { forgetStagingRecords: tableNames.flatMap((name) => parseTableKey(name) ?? []) });
    await this.state.removeTables(replicationId, tableNames);
    this.logger.info('tables removed from the replication; their warehouse tables stay', { replicationId, tables: tableNames });
  }

  /** Tells the workers to drop work that no longer counts (the fence in staging and warehouse is the guarantee). */
  cancel(released: ReleasedWork[], reason: string): void {
    const cancelledAt = new Date().toISOString();
    for (const work of released) {
      const table = parseTableKey(work.tableName);
      if (!table) continue;
      this.requester.publish(Subjects.workCancelled, { workId: work.workId, replicationId: work.replicationId, table, reason, cancelledAt });
    }
  }

  /**
   * Removes triggers and change tables, except those another live replication of the same source database tracks; and
   * has the replication's staging records forgotten as `staging` says (docs/PIPELINE.md, "Staging tables shared by
   * replications": another replication's seed would otherwise merge into those tables for a week).
   */
  private async releaseFromSource(
    replicationId: string,
    tableNames: string[],
    timeoutMs: number,
    staging: Pick<ReleaseTablesRequest, 'forgetStagingRecords' | 'forgetAllStagingRecords'>,
  ): Promise<void> {
    const shared = tableNames.length === 0 ? new Set<string>() : await this.sharedTables(replicationId);
    const tables = tableNames.filter((name) => !shared.has(name.toLowerCase())).flatMap((name) => parseTableKey(name) ?? []);
    const request: ReleaseTablesRequest = { replicationId, tables, ...staging };
    if (tables.length === 0) {
      if (staging.forgetAllStagingRecords === true || (staging.forgetStagingRecords ?? []).length > 0) await this.forgetStagingRecords(request, timeoutMs);
      return;
    }
    const reply = await this.requester.request(Subjects.extractorReleaseTables, request, timeoutMs);
    if (!reply.ok) throw new Error(reply.error.messages.join('; '));
  }

  /** Only staging records to forget: best effort, as the extractor makes it; a failure (no extractor) is logged, never thrown. */
  private async forgetStagingRecords(request: ReleaseTablesRequest, timeoutMs: number): Promise<void> {
    try {
      const reply = await this.requester.request(Subjects.extractorReleaseTables, request, timeoutMs);
      if (!reply.ok) throw new Error(reply.error.messages.join('; '));
    } catch (error) {
      this.logger.warn("could not have the replication's staging records forgotten; they age out after a week", { replicationId: request.replicationId, error });
    }
  }

  private async sharedTables(replicationId: string): Promise<Set<string>> {
    const own = await this.replications.get(replicationId);
    const identity = own ? databaseIdentityOf(own.config.source.connectionString) : null;
    const shared = new Set<string>();
    if (identity === null) return shared;
    const others = await this.state.trackedTablesOfOthers(replicationId);
    const sameSource = new Map<string, boolean>();
    for (const other of others) {
      if (!sameSource.has(other.replicationId)) {
        const stored = await this.replications.get(other.replicationId);
        sameSource.set(other.replicationId, stored !== null && databaseIdentityOf(stored.config.source.connectionString) === identity);
      }
      if (sameSource.get(other.replicationId)) shared.add(other.tableName.toLowerCase());
    }
    return shared;
  }
}
