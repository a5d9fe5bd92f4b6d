import type { JetStreamClient, NatsConnection } from 'nats';
import { PipelineStreams, type PipelinePayloadOf, type PipelineSubject } from '@svc/contracts';
import { errorText } from './jetstream-errors';
import { encodeJson } from './json-payload';

/**
 * Publishes typed pipeline messages to the work stream and waits for JetStream's acknowledgement, so a
 * caller acks its own inbound message only once the next stage's message is stored.
 */
export class PipelinePublisher {
  private readonly jetStream: JetStreamClient;

  constructor(connection: NatsConnection) {
    this.jetStream = connection.jetstream();
  }

  /**
   * `msgId` makes a republish within the stream's duplicate window a no-op. JetStream de-duplicates per
   * stream, not per subject, so the id sent is scoped by the subject: one batch id can name the batch at
   * every stage (extracted, staged, loaded) without one stage's message swallowing the next.
   */
  async publish<S extends PipelineSubject>(subject: S, payload: PipelinePayloadOf<S>, msgId: string): Promise<void> {
    if (msgId.length === 0) throw new Error(`publishing to ${subject} needs a message id`);
    try {
      await this.jetStream.publish(subject, encodeJson(payload), { msgID: `${subject}/${msgId}`, expect: { streamName: PipelineStreams.work.name } });
    } catch (error) {
      throw new Error(`cannot publish to ${subject}: ${errorText(error)}`, { cause: error });
    }
  }
}
