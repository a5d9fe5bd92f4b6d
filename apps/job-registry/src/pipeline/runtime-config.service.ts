import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, guardReplicationIdMessage, rpcError, rpcOk, type RpcReply, type RuntimeConfigReply } from '@svc/contracts';
import { ReplicationRepository, type ReplicationStore } from '@svc/registry-store';

/** Hands pipeline workers the configuration they connect with, secrets included (internal NATS only). */
@Injectable()
export class RuntimeConfigService {
  constructor(@Inject(ReplicationRepository) private readonly replications: ReplicationStore) {}

  async runtimeConfig(message: unknown): Promise<RpcReply<RuntimeConfigReply>> {
    const guarded = guardReplicationIdMessage(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const { replicationId } = guarded.value;
    const stored = await this.replications.get(replicationId);
    if (!stored) return rpcError(ErrorCode.NotFound, [`replication '${replicationId}' does not exist`]);
    return rpcOk({ replicationId, configVersion: stored.version, config: stored.config });
  }
}
