/**
 * The packet format of @nestjs/microservices' NATS transport, so that non-Nest callers (the CLI, tests)
 * talk to Nest message handlers. Request: `{ pattern, data, id }` on subject = pattern. Reply:
 * `{ id, response?, err?, isDisposed? }`.
 */
export interface NestRequestPacket<T> {
  pattern: string;
  data: T;
  id: string;
}

export interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

export function isNestReplyPacket(value: unknown): value is NestReplyPacket {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
