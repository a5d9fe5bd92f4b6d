import type { OperationName } from './replication/operations';
import type { AlertRecord } from './replication/replication-status';
import type {
  CreateAccessKeyReply,
  CreateAccessKeyRequest,
  HealthReply,
  OperationEnvelope,
  SigningKeyReply,
  SigningKeyRequest,
} from './rpc/envelope';
import type { RpcReply } from './rpc/domain-error';
import type { OperationResponse } from './replication/operations';

/**
 * Versioned NATS subjects. Never rename one in place: add a v2 beside it.
 */
export const Subjects = {
  registryOperation: 'svc.registry.v1.operation',
  registrySigningKey: 'svc.registry.v1.access-key.signing-key',
  registryCreateAccessKey: 'svc.registry.v1.access-key.create',
  alertRaised: 'svc.events.v1.alert',
} as const;

export const SERVICE_NAMES = ['api-gateway', 'job-registry', 'extractor', 'stager', 'loader'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export function healthSubject(service: ServiceName): `svc.${ServiceName}.v1.health` {
  return `svc.${service}.v1.health`;
}

/** Request/reply subjects tied to their payload types so callers and handlers cannot disagree. */
export interface RequestReplyContracts {
  'svc.registry.v1.operation': { request: OperationEnvelope; reply: RpcReply<OperationResponse<OperationName>> };
  'svc.registry.v1.access-key.signing-key': { request: SigningKeyRequest; reply: RpcReply<SigningKeyReply> };
  'svc.registry.v1.access-key.create': { request: CreateAccessKeyRequest; reply: RpcReply<CreateAccessKeyReply> };
  'svc.api-gateway.v1.health': { request: Record<string, never>; reply: HealthReply };
  'svc.job-registry.v1.health': { request: Record<string, never>; reply: HealthReply };
  'svc.extractor.v1.health': { request: Record<string, never>; reply: HealthReply };
  'svc.stager.v1.health': { request: Record<string, never>; reply: HealthReply };
  'svc.loader.v1.health': { request: Record<string, never>; reply: HealthReply };
}
export type RequestReplySubject = keyof RequestReplyContracts;
export type RequestOf<S extends RequestReplySubject> = RequestReplyContracts[S]['request'];
export type ReplyOf<S extends RequestReplySubject> = RequestReplyContracts[S]['reply'];

/** Published events and their payloads. */
export interface EventContracts {
  'svc.events.v1.alert': AlertRecord;
}
export type EventSubject = keyof EventContracts;
export type EventOf<S extends EventSubject> = EventContracts[S];
