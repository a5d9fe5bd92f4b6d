import { Injectable } from '@nestjs/common';
import { ErrorCode, rpcError, rpcOk, type DiscoverTablesReply, type RpcReply } from '@svc/contracts';
import { EngineRegistry, RuntimeConfigClient, classifyFailure } from '@svc/pipeline-runtime';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Lists a replication's source tables for the registry, which selects and registers them. */
@Injectable()
export class DiscoverService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
  ) {}

  async discover(message: unknown): Promise<RpcReply<DiscoverTablesReply>> {
    const replicationId = (message as { replicationId?: unknown } | null)?.replicationId;
    if (typeof replicationId !== 'string' || !UUID.test(replicationId)) {
      return rpcError(ErrorCode.ValidationFailed, ['replicationId: must be a GUID']);
    }
    try {
      const config = await this.configs.configOf(replicationId);
      return rpcOk({ tables: await this.engines.source(config).discoverTables() });
    } catch (error) {
      return rpcError(ErrorCode.Unavailable, [classifyFailure(error).reason]);
    }
  }
}
