import { Injectable } from '@nestjs/common';
import { ErrorCode, guardReleaseTablesRequest, rpcError, rpcOk, tableKey, type ReleaseTablesReply, type ReleaseTablesRequest, type ReplicationConfig, type RpcReply, type TableRef } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { EngineRegistry, ReplicationGoneError, RuntimeConfigClient, classifyFailure, failureLogFields } from '@svc/pipeline-runtime';

/**
 * Removes change tracking (triggers, change table, bookkeeping) of tables no replication tracks any more
 * from a replication's source. The registry decides which tables those are; releasing is idempotent, so a
 * failed request is simply sent again.
 */
@Injectable()
export class ReleaseService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly logger: JsonLogger,
  ) {}

  async release(message: unknown): Promise<RpcReply<ReleaseTablesReply>> {
    const guarded = guardReleaseTablesRequest(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const { replicationId, tables } = guarded.value;
    let current: TableRef | undefined;
    try {
      const config = await this.configs.configOf(replicationId);
      const released: string[] = [];
      if (tables.length > 0) {
        const source = this.engines.source(config);
        for (const table of tables) {
          current = table;
          await source.disableTracking(table);
          released.push(tableKey(table));
        }
        this.logger.info('released change tracking', { replicationId, tables: released });
      }
      const forgotten = await this.forgetStagingRecords(config, guarded.value);
      return rpcOk({ released, ...(forgotten !== null && { stagingRecordsForgotten: forgotten }) });
    } catch (error) {
      if (error instanceof ReplicationGoneError) return rpcError(ErrorCode.NotFound, [error.message]);
      const verdict = classifyFailure(error, { endpoint: 'Source', ...(current && { table: tableKey(current) }) });
      // The registry gets the classified reason; this service's log also says what the server said and where.
      this.logger.warn('releasing change tracking failed', { replicationId, ...(current && { table: tableKey(current) }), ...failureLogFields(error, verdict) });
      return rpcError(ErrorCode.Unavailable, [current ? `${tableKey(current)}: ${verdict.reason}` : verdict.reason]);
    }
  }

  /**
   * The replication's fences and seed records in its staging database, as asked; null when none were asked for or the
   * staging database failed: logged, never failing the release (the records age out after a week).
   */
  private async forgetStagingRecords(config: ReplicationConfig, request: ReleaseTablesRequest): Promise<number | null> {
    const { replicationId } = request;
    const tables = request.forgetAllStagingRecords === true ? undefined : request.forgetStagingRecords;
    if (tables?.length === 0 || (tables === undefined && request.forgetAllStagingRecords !== true)) return null;
    try {
      const forgotten = await this.engines.staging(config).forgetReplication(replicationId, tables);
      this.logger.info("forgot the replication's staging records", { replicationId, records: forgotten, ...(tables && { tables: tables.map(tableKey) }) });
      return forgotten;
    } catch (error) {
      const verdict = classifyFailure(error, { endpoint: 'Staging' });
      this.logger.warn("forgetting the replication's staging records failed; they age out after a week", { replicationId, ...failureLogFields(error, verdict) });
      return null;
    }
  }
}
