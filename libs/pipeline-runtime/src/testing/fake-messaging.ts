import type { ReplicationConfig } from '@svc/contracts';
import type { PipelinePublisher } from '@svc/messaging';
import { ReplicationGoneError, type RuntimeConfigClient } from '../runtime-config.client';

/** A publisher that records what it was asked to publish instead of sending it. */
export class RecordingPublisher implements Pick<PipelinePublisher, 'publish'> {
  readonly published: { subject: string; payload: unknown; messageId: string }[] = [];

  async publish(subject: string, payload: unknown, messageId: string): Promise<void> {
    this.published.push({ subject, payload, messageId });
  }

  /** The payloads published on `subject`. */
  payloadsOn(subject: string): unknown[] {
    return this.published.filter((message) => message.subject === subject).map((message) => message.payload);
  }

  /** Typed as the services take it: they only call publish. */
  asPublisher(): PipelinePublisher {
    return this as unknown as PipelinePublisher;
  }
}

/** The configurations the registry would hand out, by replication id; an unknown id is a deleted replication. */
export function staticConfigs(configs: Record<string, ReplicationConfig>): RuntimeConfigClient {
  const client: Pick<RuntimeConfigClient, 'configOf'> = {
    configOf: async (replicationId) => {
      const config = configs[replicationId];
      if (config === undefined) throw new ReplicationGoneError(replicationId);
      return config;
    },
  };
  return client as RuntimeConfigClient;
}
