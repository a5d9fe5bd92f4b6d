import { ErrorCode, Subjects, type ReplicationConfig, type ReplyOf } from '@svc/contracts';
import type { RuntimeConfigSeal } from '@svc/crypto';
import type { NatsRequester } from '@svc/messaging';
import { DEFAULT_REGISTRY_WAIT, waitForRegistry, type RegistryWait } from './registry-wait';

export class ReplicationGoneError extends Error {
  constructor(replicationId: string) {
    super(`replication ${replicationId} no longer exists`);
    this.name = 'ReplicationGoneError';
  }
}

/**
 * Fetches a replication's configuration (with secrets) from the registry, reusing it for a moment — but
 * never for work issued under a newer configuration version (an Alter that rotated a password must not
 * meet a cached old one). A registry that does not answer (restarting, failing over, NATS reconnecting)
 * is waited for in place, up to `wait.maxWaitMs`: the worker keeps its message (heartbeats extend its ack
 * deadline), so a control-plane outage costs time but no delivery attempt. A worker shutting down ends
 * the wait at once (`wait.shutdown`), and the worker hands the message back for another process.
 */
export class RuntimeConfigClient {
  private readonly cache = new Map<string, { config: ReplicationConfig; version: number; expiresAt: number }>();
  private readonly wait: RegistryWait;
  private readonly shutdown: AbortSignal;

  constructor(
    private readonly requester: Pick<NatsRequester, 'request'>,
    private readonly seal: Pick<RuntimeConfigSeal, 'prove' | 'open'>,
    private readonly maxAgeMs = 2000,
    wait: Partial<RegistryWait> = {},
  ) {
    this.wait = { ...DEFAULT_REGISTRY_WAIT, ...wait };
    this.shutdown = wait.shutdown ?? new AbortController().signal;
  }

  async configOf(replicationId: string, atLeastVersion = 0): Promise<ReplicationConfig> {
    const cached = this.cache.get(replicationId);
    if (cached && cached.expiresAt > Date.now() && cached.version >= atLeastVersion) return cached.config;
    const { reply, nonce } = await this.requestWaitingForRegistry(replicationId);
    if (!reply.ok) {
      if (reply.error.code === ErrorCode.NotFound) throw new ReplicationGoneError(replicationId);
      if (reply.error.code === ErrorCode.Forbidden) {
        throw new Error(`registry refused the configuration of ${replicationId}: this worker's SVC_WORKER_KEY is not the registry's, or its clock is more than a minute off`);
      }
      throw new Error(`registry refused the configuration of ${replicationId}: ${reply.error.messages.join('; ')}`);
    }
    const config = JSON.parse(this.seal.open(reply.value.sealedConfig, replicationId, nonce)) as ReplicationConfig;
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(replicationId, { config, version: reply.value.configVersion, expiresAt: Date.now() + this.maxAgeMs });
    return config;
  }

  /** Each attempt with a proof of its own: a wait for the registry may last longer than a proof is valid. */
  private requestWaitingForRegistry(replicationId: string): Promise<{ reply: ReplyOf<typeof Subjects.registryRuntimeConfig>; nonce: string }> {
    return waitForRegistry(async () => {
      const proof = this.seal.prove(replicationId);
      return { reply: await this.requester.request(Subjects.registryRuntimeConfig, { replicationId, proof }), nonce: proof.nonce };
    }, { ...this.wait, shutdown: this.shutdown });
  }
}
