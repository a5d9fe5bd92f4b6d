import type { Static } from '@sinclair/typebox';
import type { OperationEnvelopeSchema } from '../guards';
import type { OperationName, OperationRequest } from '../replication/operations';

/** Gateway → registry: an authenticated, decoded and validated API call (its schema types all but the payload). */
export type OperationEnvelope<Op extends OperationName = OperationName> = Omit<Static<typeof OperationEnvelopeSchema>, 'operation' | 'payload'> & {
  operation: Op;
  payload: OperationRequest<Op>;
};

export type { CreateAccessKeyRequest, ManageAccessKeysRequest, SignatureCheckRequest, SignedCall } from '../guards';

/** The key whose signature a call carries, and what it may call (operation names, or `*` for all). */
export interface SignatureCheckReply {
  accessKeyId: string;
  allowedOperations: string[];
}

/** An access key as an operator sees it: never a secret. */
export interface AccessKeySummary {
  accessKeyId: string;
  allowedOperations: string[];
  replicationScope: 'Own' | 'All';
  description: string;
  bootstrap: boolean;
  status: 'Active' | 'Disabled' | 'Expired';
  createdAt: string;
  expiresAt: string | null;
  previousSecretValidUntil: string | null;
}

/** List answers `accessKeys`; Rotate the new secret (shown once) and until when the replaced one signs; others nothing. */
export interface ManageAccessKeysReply {
  accessKeys?: AccessKeySummary[];
  secretKey?: string;
  previousSecretValidUntil?: string;
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
