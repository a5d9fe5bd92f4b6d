import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, rpcError, rpcOk, type RpcReply, type RuntimeConfigReply } from '@svc/contracts';
import { ReplicationRepository, type ReplicationStore } from '@svc/registry-store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Hands pipeline workers the configuration they connect with, secrets included (internal NATS only). */
@Injectable()
export class RuntimeConfigService {
  constructor(@Inject(ReplicationRepository) private readonly replications: ReplicationStore) {}

  async runtimeConfig(message: unknown): Promise<RpcReply<RuntimeConfigReply>> {
    const replicationId = (message as { replicationId?: unknown } | null)?.replicationId;
    if (typeof replicationId !== 'string' || !UUID.test(replicationId)) {
      return rpcError(ErrorCode.ValidationFailed, ['replicationId: must be a GUID']);
    }
    const stored = await this.replications.get(replicationId);
    if (!stored) return rpcError(ErrorCode.NotFound, [`replication '${replicationId}' does not exist`]);
    return rpcOk({ replicationId, configVersion: stored.version, config: stored.config });
  }
}
