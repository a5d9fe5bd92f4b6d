export { MessagingError, NatsRequester, connectNats } from './nats-requester';
export { isNestReplyPacket, type NestReplyPacket, type NestRequestPacket } from './nest-wire';
