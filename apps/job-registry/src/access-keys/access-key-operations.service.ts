import { Inject, Injectable } from '@nestjs/common';
import { fieldLabel } from '@svc/api-model';
import {
  ErrorCode,
  NEVER_EXPIRES,
  rpcError,
  rpcOk,
  type AccessKeyDescription,
  type AccessKeyIdRequest,
  type AccessKeyOperationName,
  type CreateAccessKeyOperationRequest,
  type CreateAccessKeyOperationResponse,
  type ListAccessKeysResponse,
  type RotateAccessKeyRequest,
  type RotateAccessKeyResponse,
  type RpcReply,
  type UpdateAccessKeyRequest,
} from '@svc/contracts';
import { AccessKeyRepository, type AccessKeyChange, type AccessKeyListing, type AccessKeyStore } from '@svc/registry-store';
import { AccessKeysService, keyStatusOf } from './access-keys.service';
import { grantProblems, mayManage, rotationProblems } from './access-key-permissions';

const ACCESS_KEY_ID = fieldLabel(['accessKeyId']);
const EXPIRES_AT = fieldLabel(['expiresAt']);

/** The calling key as the registry has it now: usable, with its rights. */
type Caller = AccessKeyListing;

/**
 * The access key operations of the signed API, on behalf of the calling key and within its rights
 * (access-key-permissions). The lifecycle itself is AccessKeysService's, shared with an operator on the bus.
 */
@Injectable()
export class AccessKeyOperations {
  constructor(
    @Inject(AccessKeysService) private readonly lifecycle: AccessKeysService,
    @Inject(AccessKeyRepository) private readonly keys: Pick<AccessKeyStore, 'get'>,
  ) {}

  /** The caller, or a refusal: the registry checks the operation by name too, whatever the gateway let through. */
  async callerFor<T>(accessKeyId: string, operation: AccessKeyOperationName): Promise<{ caller: Caller } | { refusal: RpcReply<T> }> {
    const caller = await this.keys.get(accessKeyId);
    if (caller === null || keyStatusOf(caller) !== 'Active') return { refusal: rpcError(ErrorCode.Forbidden, ['the access key does not exist (any more)']) };
    if (!caller.allowedOperations.includes('*') && !caller.allowedOperations.includes(operation)) {
      return { refusal: rpcError(ErrorCode.Forbidden, [`the access key is not allowed ${operation}`]) };
    }
    return { caller };
  }

  async create(caller: Caller, request: CreateAccessKeyOperationRequest): Promise<RpcReply<CreateAccessKeyOperationResponse>> {
    const wanted = { allowedOperations: request.allowedOperations, replicationScope: request.replicationScope ?? 'Own' };
    const refused = grantProblems(caller, wanted);
    if (refused.length > 0) return rpcError(ErrorCode.Forbidden, refused);
    const expiresAt = request.expiresAt === undefined ? null : new Date(request.expiresAt);
    if (expiresAt !== null && expiresAt <= new Date()) return rpcError(ErrorCode.ValidationFailed, [`${EXPIRES_AT}: must be in the future`]);
    const created = await this.lifecycle.issueKey({ ...wanted, description: request.description ?? '', createdBy: caller.accessKeyId, expiresAt });
    return rpcOk({
      accessKeyId: created.accessKeyId,
      secretAccessKey: created.secretKey,
      allowedOperations: wanted.allowedOperations,
      replicationScope: wanted.replicationScope,
      expiresAt: expiresAt?.toISOString() ?? null,
    });
  }

  async list(caller: Caller): Promise<RpcReply<ListAccessKeysResponse>> {
    const visible = (await this.lifecycle.listKeys()).filter((key) => mayManage(caller, key));
    return rpcOk({ accessKeys: visible.map(descriptionOf) });
  }

  async update(caller: Caller, request: UpdateAccessKeyRequest): Promise<RpcReply<null>> {
    const target = await this.managed(caller, request.accessKeyId);
    if (target === null) return noSuchKey(request.accessKeyId);
    const changes: AccessKeyChange[] = [];
    if (request.expiresAt !== undefined) {
      const expiresAt = request.expiresAt === NEVER_EXPIRES ? null : new Date(request.expiresAt);
      if (expiresAt !== null && expiresAt <= new Date()) return rpcError(ErrorCode.ValidationFailed, [`${EXPIRES_AT}: must be in the future (to stop a key now, set Status Disabled)`]);
      changes.push({ kind: 'expiry', expiresAt });
    }
    if (request.status !== undefined) changes.push({ kind: 'status', disabled: request.status === 'Disabled' });
    for (const change of changes) {
      const refusal = await this.apply(request.accessKeyId, change);
      if (refusal) return refusal;
    }
    return rpcOk(null);
  }

  async delete(caller: Caller, request: AccessKeyIdRequest): Promise<RpcReply<null>> {
    if ((await this.managed(caller, request.accessKeyId)) === null) return noSuchKey(request.accessKeyId);
    return (await this.apply(request.accessKeyId, { kind: 'delete' })) ?? rpcOk(null);
  }

  async rotate(caller: Caller, request: RotateAccessKeyRequest): Promise<RpcReply<RotateAccessKeyResponse>> {
    const target = await this.managed(caller, request.accessKeyId);
    if (target === null) return noSuchKey(request.accessKeyId);
    const refused = rotationProblems(caller, target);
    if (refused.length > 0) return rpcError(ErrorCode.Forbidden, refused);
    const rotated = await this.lifecycle.rotateKey(request.accessKeyId, request.overlapMinutes);
    if (rotated === null) return noSuchKey(request.accessKeyId);
    return rpcOk({ accessKeyId: request.accessKeyId, secretAccessKey: rotated.secretKey, previousSecretValidUntil: rotated.previousValidUntil.toISOString() });
  }

  /** The target when the caller may manage it; null both when it does not exist and when it is not the caller's to see. */
  private async managed(caller: Caller, accessKeyId: string): Promise<AccessKeyListing | null> {
    const target = await this.keys.get(accessKeyId);
    return target !== null && mayManage(caller, target) ? target : null;
  }

  private async apply(accessKeyId: string, change: AccessKeyChange): Promise<RpcReply<null> | null> {
    const outcome = await this.lifecycle.changeKey(accessKeyId, change, { keepAnAllKey: true });
    if (outcome === 'missing') return noSuchKey(accessKeyId);
    if (outcome === 'lastAllKey') {
      return rpcError(ErrorCode.Conflict, [
        `${ACCESS_KEY_ID}: key '${accessKeyId}' is the last enabled key with ReplicationScope All: create or enable another All key first, so that keys can still be managed`,
      ]);
    }
    return null;
  }
}

/** The one answer for a key that does not exist and for one the caller may not see. */
function noSuchKey<T>(accessKeyId: string): RpcReply<T> {
  return rpcError(ErrorCode.NotFound, [`${ACCESS_KEY_ID}: access key '${accessKeyId}' does not exist`]);
}

function descriptionOf(key: AccessKeyListing): AccessKeyDescription {
  return {
    accessKeyId: key.accessKeyId,
    status: keyStatusOf(key),
    replicationScope: key.replicationScope,
    allowedOperations: key.allowedOperations,
    description: key.description,
    bootstrap: key.bootstrap,
    createdAt: key.createdAt.toISOString(),
    createdBy: key.createdBy,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    previousSecretValidUntil: key.previousSecretValidUntil?.toISOString() ?? null,
  };
}
