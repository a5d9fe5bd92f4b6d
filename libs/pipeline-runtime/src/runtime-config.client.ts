import { ErrorCode, Subjects, type ReplicationConfig, type ReplyOf } from '@svc/contracts';
import { MessagingError, WorkAbortedError, abortableSleep, retryDelayMs, type NatsRequester, type RetryBackoff } from '@svc/messaging';

export class ReplicationGoneError extends Error {
  constructor(replicationId: string) {
    super(`replication ${replicationId} no longer exists`);
    this.name = 'ReplicationGoneError';
  }
}

/** How long a worker waits for an unreachable registry before its work fails (and is retried by redelivery). */
export interface RegistryWait {
  /** Waiting longer than this gives up. Default 5 minutes. */
  maxWaitMs: number;
  /** Pause between attempts: 250 ms doubling to 5 s, jittered. */
  backoff: RetryBackoff;
  /** Rejects with WorkAbortedError once `signal` is aborted. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  now: () => number;
  /** Aborted when the worker shuts down: a wait for the registry then ends at once (WorkAbortedError). */
  shutdown?: AbortSignal;
}

const DEFAULT_REGISTRY_WAIT: RegistryWait = {
  maxWaitMs: 5 * 60000,
  backoff: { initialMs: 250, maxMs: 5000 },
  sleep: abortableSleep,
  now: () => Date.now(),
};

/** No registry instance answers (none running, or one restarting) or none answered in time. */
function registryUnavailable(error: unknown): error is MessagingError {
  return error instanceof MessagingError && (error.kind === 'NoResponders' || error.kind === 'Timeout');
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
    private readonly maxAgeMs = 2000,
    wait: Partial<RegistryWait> = {},
  ) {
    this.wait = { ...DEFAULT_REGISTRY_WAIT, ...wait };
    this.shutdown = wait.shutdown ?? new AbortController().signal;
  }

  async configOf(replicationId: string, atLeastVersion = 0): Promise<ReplicationConfig> {
    const cached = this.cache.get(replicationId);
    if (cached && cached.expiresAt > Date.now() && cached.version >= atLeastVersion) return cached.config;
    const reply = await this.requestWaitingForRegistry(replicationId);
    if (!reply.ok) {
      if (reply.error.code === ErrorCode.NotFound) throw new ReplicationGoneError(replicationId);
      throw new Error(`registry refused the configuration of ${replicationId}: ${reply.error.messages.join('; ')}`);
    }
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(replicationId, { config: reply.value.config, version: reply.value.configVersion, expiresAt: Date.now() + this.maxAgeMs });
    return reply.value.config;
  }

  private async requestWaitingForRegistry(replicationId: string): Promise<ReplyOf<typeof Subjects.registryRuntimeConfig>> {
    const startedAt = this.wait.now();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.requester.request(Subjects.registryRuntimeConfig, { replicationId });
      } catch (error) {
        const waited = this.wait.now() - startedAt;
        if (!registryUnavailable(error) || waited >= this.wait.maxWaitMs) throw error;
        if (this.shutdown.aborted) throw new WorkAbortedError('the worker is shutting down while the registry does not answer', { cause: error });
        await this.wait.sleep(Math.min(retryDelayMs(attempt, this.wait.backoff), this.wait.maxWaitMs - waited), this.shutdown);
      }
    }
  }
}
