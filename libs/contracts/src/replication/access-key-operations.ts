/**
 * The access key operations of the signed API: a key manages keys within its own rights (see the registry's
 * AccessKeyPermissions). Secrets appear in exactly two answers, once each: CreateAccessKey and RotateAccessKey.
 */
export const ACCESS_KEY_OPERATIONS = ['CreateAccessKey', 'ListAccessKeys', 'UpdateAccessKey', 'DeleteAccessKey', 'RotateAccessKey'] as const;
export type AccessKeyOperationName = (typeof ACCESS_KEY_OPERATIONS)[number];

export const REPLICATION_SCOPES = ['Own', 'All'] as const;
/** Which replications a key acts on: those it created ('Own'), or every one and the service-wide operations ('All'). */
export type AccessKeyScope = (typeof REPLICATION_SCOPES)[number];

export const ACCESS_KEY_STATUSES = ['Enabled', 'Disabled'] as const;
export type AccessKeyStatusChange = (typeof ACCESS_KEY_STATUSES)[number];

/** UpdateAccessKey's ExpiresAt that clears an expiry. */
export const NEVER_EXPIRES = 'Never';

/** How long a replaced secret keeps signing when a rotation does not say, and the longest overlap allowed. */
export const DEFAULT_ROTATION_OVERLAP_MINUTES = 60;
export const MAX_ROTATION_OVERLAP_MINUTES = 7 * 24 * 60;

export interface CreateAccessKeyOperationRequest {
  /** Operation names, or `*` alone for all. */
  allowedOperations: string[];
  /** 'Own' when absent. */
  replicationScope?: AccessKeyScope;
  /** ISO timestamp in the future; the key never expires when absent. */
  expiresAt?: string;
  description?: string;
}

export interface CreateAccessKeyOperationResponse {
  accessKeyId: string;
  /** Shown this once; the registry keeps it sealed and never answers it again. */
  secretAccessKey: string;
  allowedOperations: string[];
  replicationScope: AccessKeyScope;
  expiresAt: string | null;
}

export interface AccessKeyIdRequest {
  accessKeyId: string;
}

export interface UpdateAccessKeyRequest {
  accessKeyId: string;
  status?: AccessKeyStatusChange;
  /** An ISO timestamp, or NEVER_EXPIRES to clear the expiry. */
  expiresAt?: string;
}

export interface RotateAccessKeyRequest {
  accessKeyId: string;
  /** Minutes the replaced secret still signs (0 to MAX_ROTATION_OVERLAP_MINUTES); DEFAULT_ROTATION_OVERLAP_MINUTES when absent. */
  overlapMinutes?: number;
}

export interface RotateAccessKeyResponse {
  accessKeyId: string;
  /** Shown this once. */
  secretAccessKey: string;
  previousSecretValidUntil: string;
}

/** A key as ListAccessKeys shows it: never a secret. */
export interface AccessKeyDescription {
  accessKeyId: string;
  status: 'Active' | 'Disabled' | 'Expired';
  replicationScope: AccessKeyScope;
  allowedOperations: string[];
  description: string;
  bootstrap: boolean;
  createdAt: string;
  /** The key that created it over the API; absent for the bootstrap key and keys an operator made on the bus. */
  createdBy: string | null;
  expiresAt: string | null;
  previousSecretValidUntil: string | null;
}

export interface ListAccessKeysResponse {
  accessKeys: AccessKeyDescription[];
}
