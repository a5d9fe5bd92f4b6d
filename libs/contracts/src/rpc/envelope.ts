import type { Static } from '@sinclair/typebox';
import type { OperationEnvelopeSchema } from '../guards';
import type { OperationName, OperationRequest } from '../replication/operations';

/** Gateway → registry: an authenticated, decoded and validated API call (its schema types all but the payload). */
export type OperationEnvelope<Op extends OperationName = OperationName> = Omit<Static<typeof OperationEnvelopeSchema>, 'operation' | 'payload'> & {
  operation: Op;
  payload: OperationRequest<Op>;
};

export type { CreateAccessKeyRequest, SigningKeyRequest } from '../guards';

/** The secret itself never leaves the registry: only the key derived for one day, region and service. */
export interface SigningKeyReply {
  signingKeyHex: string;
  /** Operation names, or `*` for all. */
  allowedOperations: string[];
}

export interface CreateAccessKeyReply {
  accessKeyId: string;
  secretKey: string;
  allowedOperations: string[];
  replicationScope: 'Own' | 'All';
}

export interface HealthReply {
  service: string;
  status: 'ok';
  instanceId: string;
  uptimeSeconds: number;
}
