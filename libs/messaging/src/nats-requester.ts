import { randomUUID } from 'node:crypto';
import { JSONCodec, type NatsConnection } from 'nats';
import type { EventOf, EventSubject, ReplyOf, RequestOf, RequestReplySubject } from '@svc/contracts';
import { isNestReplyPacket, type NestRequestPacket } from './nest-wire';

export class MessagingError extends Error {
  constructor(
    message: string,
    readonly kind: 'NoResponders' | 'Timeout' | 'RemoteError' | 'BadReply',
  ) {
    super(message);
    this.name = 'MessagingError';
  }
}

const codec = JSONCodec<unknown>();

/**
 * Typed request/reply and publish over core NATS. Subjects and payloads come from the contracts'
 * subject map, so a caller cannot send the wrong payload to a subject.
 */
export class NatsRequester {
  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  async request<S extends RequestReplySubject>(subject: S, payload: RequestOf<S>, timeoutMs = this.timeoutMs): Promise<ReplyOf<S>> {
    const packet: NestRequestPacket<RequestOf<S>> = { pattern: subject, data: payload, id: randomUUID() };
    let replyData: Uint8Array;
    try {
      const reply = await this.connection.request(subject, codec.encode(packet), { timeout: timeoutMs });
      replyData = reply.data;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === '503') throw new MessagingError(`no service answers on ${subject}`, 'NoResponders');
      if (code === 'TIMEOUT') throw new MessagingError(`no reply on ${subject} within ${timeoutMs} ms`, 'Timeout');
      throw error;
    }
    const decoded = codec.decode(replyData);
    if (!isNestReplyPacket(decoded)) throw new MessagingError(`malformed reply on ${subject}`, 'BadReply');
    if (decoded.err !== undefined && decoded.err !== null) {
      throw new MessagingError(`handler for ${subject} failed`, 'RemoteError');
    }
    return decoded.response as ReplyOf<S>;
  }

  publish<S extends EventSubject>(subject: S, event: EventOf<S>): void {
    // Nest's event packets carry no id; handlers get `data`.
    this.connection.publish(subject, codec.encode({ pattern: subject, data: event }));
  }
}
