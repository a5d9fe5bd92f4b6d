import { Injectable } from '@nestjs/common';
import { ErrorCode, guardReplicationIdMessage, rpcError, rpcOk, type DiscoverTablesReply, type RpcReply } from '@svc/contracts';
import { EngineRegistry, RuntimeConfigClient, classifyFailure } from '@svc/pipeline-runtime';

/** Lists a replication's source tables for the registry, which selects and registers them. */
@Injectable()
export class DiscoverService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
  ) {}

  async discover(message: unknown): Promise<RpcReply<DiscoverTablesReply>> {
    const guarded = guardReplicationIdMessage(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const { replicationId } = guarded.value;
    try {
      const config = await this.configs.configOf(replicationId);
      return rpcOk({ tables: await this.engines.source(config).discoverTables() });
    } catch (error) {
      return rpcError(ErrorCode.Unavailable, [classifyFailure(error, { endpoint: 'Source' }).reason]);
    }
  }
}
