import { Injectable } from '@nestjs/common';
import { ErrorCode, guardReplicationIdMessage, rpcError, rpcOk, type DiscoverTablesReply, type RpcReply } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { EngineRegistry, RuntimeConfigClient, classifyFailure, failureLogFields } from '@svc/pipeline-runtime';

/** Lists a replication's source tables for the registry, which selects and registers them. */
@Injectable()
export class DiscoverService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly logger: JsonLogger,
  ) {}

  async discover(message: unknown): Promise<RpcReply<DiscoverTablesReply>> {
    const guarded = guardReplicationIdMessage(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const { replicationId } = guarded.value;
    try {
      const config = await this.configs.configOf(replicationId);
      return rpcOk({ tables: await this.engines.source(config).discoverTables() });
    } catch (error) {
      const verdict = classifyFailure(error, { endpoint: 'Source' });
      // The registry gets the classified reason; this service's log also says what the server said and where.
      this.logger.warn('table discovery failed', { replicationId, ...failureLogFields(error, verdict) });
      return rpcError(ErrorCode.Unavailable, [verdict.reason]);
    }
  }
}
