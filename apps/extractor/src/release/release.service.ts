import { Injectable } from '@nestjs/common';
import { ErrorCode, guardReleaseTablesRequest, rpcError, rpcOk, tableKey, type ReleaseTablesReply, type RpcReply, type TableRef } from '@svc/contracts';
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
      const source = this.engines.source(await this.configs.configOf(replicationId));
      const released: string[] = [];
      for (const table of tables) {
        current = table;
        await source.disableTracking(table);
        released.push(tableKey(table));
      }
      if (released.length > 0) this.logger.info('released change tracking', { replicationId, tables: released });
      return rpcOk({ released });
    } catch (error) {
      if (error instanceof ReplicationGoneError) return rpcError(ErrorCode.NotFound, [error.message]);
      const verdict = classifyFailure(error, { endpoint: 'Source', ...(current && { table: tableKey(current) }) });
      // The registry gets the classified reason; this service's log also says what the server said and where.
      this.logger.warn('releasing change tracking failed', { replicationId, ...(current && { table: tableKey(current) }), ...failureLogFields(error, verdict) });
      return rpcError(ErrorCode.Unavailable, [current ? `${tableKey(current)}: ${verdict.reason}` : verdict.reason]);
    }
  }
}
