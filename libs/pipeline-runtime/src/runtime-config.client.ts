import { ErrorCode, Subjects, type ReplicationConfig } from '@svc/contracts';
import type { NatsRequester } from '@svc/messaging';

export class ReplicationGoneError extends Error {
  constructor(replicationId: string) {
    super(`replication ${replicationId} no longer exists`);
    this.name = 'ReplicationGoneError';
  }
}

/**
 * Fetches a replication's configuration (with secrets) from the registry, reusing it for a moment — but
 * never for work issued under a newer configuration version (an Alter that rotated a password must not
 * meet a cached old one).
 */
export class RuntimeConfigClient {
  private readonly cache = new Map<string, { config: ReplicationConfig; version: number; expiresAt: number }>();

  constructor(
    private readonly requester: Pick<NatsRequester, 'request'>,
    private readonly maxAgeMs = 2000,
  ) {}

  async configOf(replicationId: string, atLeastVersion = 0): Promise<ReplicationConfig> {
    const cached = this.cache.get(replicationId);
    if (cached && cached.expiresAt > Date.now() && cached.version >= atLeastVersion) return cached.config;
    const reply = await this.requester.request(Subjects.registryRuntimeConfig, { replicationId });
    if (!reply.ok) {
      if (reply.error.code === ErrorCode.NotFound) throw new ReplicationGoneError(replicationId);
      throw new Error(`registry refused the configuration of ${replicationId}: ${reply.error.messages.join('; ')}`);
    }
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(replicationId, { config: reply.value.config, version: reply.value.configVersion, expiresAt: Date.now() + this.maxAgeMs });
    return reply.value.config;
  }
}
