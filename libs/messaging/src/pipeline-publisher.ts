import type { JetStreamClient, NatsConnection } from 'nats';
import type { PipelinePayloadOf, PipelineSubject } from '@svc/contracts';
import { errorText } from './jetstream-errors';
import { encodeJson } from './json-payload';
import { DEFAULT_OUTAGE_WAIT, isNoResponders, noStreamTakes, waitOutOutage, type OutageWait } from './nats-outage';
import { WorkAbortedError } from './work-errors';
import { busNames } from './bus-names';

/**
 * Publishes typed pipeline messages to the work stream and waits for JetStream's acknowledgement, so a
 * caller acks its own inbound message only once the next stage's message is stored.
 *
 * While NATS is unreachable (restarting, a node dying, JetStream failing over) a publish is retried in
 * place for up to `outageWait.maxWaitMs` (default 2 minutes) instead of failing the caller's delivery;
 * `outageWait.shutdown` ends that wait at once with WorkAbortedError.
 */
export class PipelinePublisher {
  private readonly jetStream: JetStreamClient;
  private readonly outageWait: OutageWait;

  constructor(
    private readonly connection: NatsConnection,
    outageWait: Partial<OutageWait> = {},
  ) {
    this.jetStream = connection.jetstream();
    this.outageWait = { ...DEFAULT_OUTAGE_WAIT, ...outageWait };
  }

  /**
   * `msgId` makes a republish within the stream's duplicate window a no-op. JetStream de-duplicates per
   * stream, not per subject, so the id sent is scoped by the subject: one batch id can name the batch at
   * every stage (extracted, staged, loaded) without one stage's message swallowing the next. Every retry
   * sends the same id, so a publish whose acknowledgement was lost is not stored twice.
   */
  async publish<S extends PipelineSubject>(subject: S, payload: PipelinePayloadOf<S>, msgId: string): Promise<void> {
    if (msgId.length === 0) throw new Error(`publishing to ${subject} needs a message id`);
    const data = encodeJson(payload);
    const names = busNames();
    const onBus = names.subject(subject);
    const options = { msgID: `${subject}/${msgId}`, expect: { streamName: names.workStream } };
    try {
      await waitOutOutage(
        () => this.jetStream.publish(onBus, data, options),
        this.outageWait,
        async (error) => isNoResponders(error) && (await noStreamTakes(this.connection, names.workStream, onBus)),
      );
    } catch (error) {
      if (error instanceof WorkAbortedError) throw error;
      throw new Error(`cannot publish to ${subject}: ${errorText(error)}`, { cause: error });
    }
  }
}
