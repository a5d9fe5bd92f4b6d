import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, guardReplicationIdMessage, rpcError, rpcOk, type RpcReply, type RuntimeConfigReply } from '@svc/contracts';
import { RuntimeConfigSeal } from '@svc/crypto';
import { JsonLogger } from '@svc/logging';
import { ReplicationRepository, type ReplicationStore } from '@svc/registry-store';

/** What a caller without a valid worker proof hears: nothing about the replication, not even whether it exists. */
const REFUSED = 'not authorised';

/**
 * Hands pipeline workers the configuration they connect with, secrets included, sealed for the worker that asked
 * (RuntimeConfigSeal). A request without a proof made with the worker key is refused before anything is looked up.
 */
@Injectable()
export class RuntimeConfigService {
  constructor(
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
    private readonly seal: RuntimeConfigSeal,
    private readonly logger: JsonLogger,
  ) {}

  async runtimeConfig(message: unknown, now: Date = new Date()): Promise<RpcReply<RuntimeConfigReply>> {
    const guarded = guardReplicationIdMessage(message);
    const proof = typeof message === 'object' && message !== null ? (message as { proof?: unknown }).proof : undefined;
    if (!guarded.ok || !this.seal.verify(guarded.value.replicationId, proof, now)) {
      this.logger.warn('runtime configuration refused: the request carried no valid worker proof (a caller without SVC_WORKER_KEY, or a clock more than a minute off)');
      return rpcError(ErrorCode.Forbidden, [REFUSED]);
    }
    const { replicationId } = guarded.value;
    const stored = await this.replications.get(replicationId);
    if (!stored) return rpcError(ErrorCode.NotFound, [`replication '${replicationId}' does not exist`]);
    const sealedConfig = this.seal.seal(JSON.stringify(stored.config), replicationId, proof.nonce);
    return rpcOk({ replicationId, configVersion: stored.version, sealedConfig });
  }
}
