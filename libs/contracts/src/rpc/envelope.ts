import type { OperationName, OperationRequest } from '../replication/operations';

/** Gateway → registry: an authenticated, decoded and validated API call. */
export interface OperationEnvelope<Op extends OperationName = OperationName> {
  requestId: string;
  accessKeyId: string;
  operation: Op;
  payload: OperationRequest<Op>;
}

/** Gateway → registry: fetch the SigV4-style signing key of an access key for one scope. */
export interface SigningKeyRequest {
  accessKeyId: string;
  /** yyyymmdd */
  date: string;
  region: string;
  service: string;
}

/** The secret itself never leaves the registry: only the key derived for one day, region and service. */
export interface SigningKeyReply {
  signingKeyHex: string;
  /** Operation names, or `*` for all. */
  allowedOperations: string[];
}

export interface CreateAccessKeyRequest {
  allowedOperations: string[];
  description?: string;
}

export interface CreateAccessKeyReply {
  accessKeyId: string;
  secretKey: string;
  allowedOperations: string[];
}

export interface HealthReply {
  service: string;
  status: 'ok';
  instanceId: string;
  uptimeSeconds: number;
}
