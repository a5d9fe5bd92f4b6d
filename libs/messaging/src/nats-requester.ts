import { randomUUID } from 'node:crypto';
import { Events, JSONCodec, type NatsConnection } from 'nats';
import type { EventOf, EventSubject, ReplyOf, RequestOf, RequestReplySubject } from '@svc/contracts';
import { isNestReplyPacket, type NestRequestPacket } from './nest-wire';
import { busNames, type BusNames } from './bus-names';

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
 * After NATS reconnects, how long a request sent before (or while the connection was down) may still wait for its
 * reply. The request or its reply may have died with the server; a reply that survived (a slow handler on another
 * node of a cluster) comes within this grace, and a lost one no longer holds its caller for the whole request timeout.
 */
export const RECONNECT_GRACE_MS = 5000;

/**
 * Typed request/reply and publish over core NATS. Subjects and payloads come from the contracts'
 * subject map, so a caller cannot send the wrong payload to a subject.
 */
export class NatsRequester {
  /** Requests waiting for a reply. */
  private readonly pending = new Set<{ lose: () => void }>();

  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
    private readonly reconnectGraceMs = RECONNECT_GRACE_MS,
    /** Whose subjects: this process's installation unless told (a test that drives another installation's stack). */
    private readonly names: BusNames = busNames(),
  ) {
    void this.followReconnects();
  }

  async request<S extends RequestReplySubject>(subject: S, payload: RequestOf<S>, timeoutMs = this.timeoutMs): Promise<ReplyOf<S>> {
    const packet: NestRequestPacket<RequestOf<S>> = { pattern: subject, data: payload, id: randomUUID() };
    let replyData: Uint8Array;
    let lost: (() => void) | undefined;
    const lostInReconnect = new Promise<never>((_resolve, reject) => {
      lost = () => reject(new MessagingError(`no reply on ${subject}: NATS reconnected, and the request or its reply was lost`, 'Timeout'));
    });
    const waiter = { lose: () => lost?.() };
    this.pending.add(waiter);
    try {
      const reply = await Promise.race([this.connection.request(this.names.subject(subject), codec.encode(packet), { timeout: timeoutMs }), lostInReconnect]);
      replyData = reply.data;
    } catch (error) {
      if (error instanceof MessagingError) throw error;
      const code = (error as { code?: string }).code;
      if (code === '503') throw new MessagingError(`no service answers on ${subject}`, 'NoResponders');
      if (code === 'TIMEOUT') throw new MessagingError(`no reply on ${subject} within ${timeoutMs} ms`, 'Timeout');
      throw error;
    } finally {
      this.pending.delete(waiter);
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
    this.connection.publish(this.names.subject(subject), codec.encode({ pattern: subject, data: event }));
  }

  private async followReconnects(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type !== Events.Reconnect) continue;
      // Sent before the connection dropped, or while it was down (buffered, then sent before the responders were back).
      const sentBefore = [...this.pending];
      if (sentBefore.length === 0) continue;
      setTimeout(() => {
        for (const waiter of sentBefore) if (this.pending.has(waiter)) waiter.lose();
      }, this.reconnectGraceMs).unref();
    }
  }
}
