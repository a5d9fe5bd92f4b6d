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
import { AccessKeyRepository, type AccessKeyChange, type AccessKeyChangeRefusal, type AccessKeyListing, type AccessKeyStore } from '@svc/registry-store';
import { AccessKeysService, keyStatusOf } from './access-keys.service';
import { grantProblems, mayManage, rotationProblems } from './access-key-permissions';
import { refusalOfKey, stoppedKeyMessage } from './key-refusals';

const ACCESS_KEY_ID = fieldLabel(['accessKeyId']);
const EXPIRES_AT = fieldLabel(['expiresAt']);
const STATUS = fieldLabel(['status']);

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
    const stopped = refusalOfKey(accessKeyId, caller);
    if (caller === null || stopped !== undefined) return { refusal: rpcError(ErrorCode.Forbidden, [stopped ?? stoppedKeyMessage(accessKeyId, null)]) };
    if (!caller.allowedOperations.includes('*') && !caller.allowedOperations.includes(operation)) {
      return { refusal: rpcError(ErrorCode.Forbidden, [`the access key is not allowed ${operation}`]) };
    }
    return { caller };
  }

  async create(caller: Caller, request: CreateAccessKeyOperationRequest): Promise<RpcReply<CreateAccessKeyOperationResponse>> {
    const wanted = { allowedOperations: request.allowedOperations, replicationScope: request.replicationScope ?? 'Own' };
    const refused = grantProblems(caller, wanted);
    if (refused.length > 0) return rpcError(ErrorCode.Forbidden, refused);
    const asked = request.expiresAt === undefined ? null : new Date(request.expiresAt);
    if (asked !== null && asked <= new Date()) return rpcError(ErrorCode.ValidationFailed, [`${EXPIRES_AT}: must be in the future`]);
    // A key lives no longer than its creator (it stops with it anyway): without an expiry of its own, it gets the creator's.
    const ceiling = caller.effective.expiresAt;
    if (asked !== null && ceiling !== null && asked > ceiling) {
      return rpcError(ErrorCode.Forbidden, [
        `${EXPIRES_AT}: this key expires at ${ceiling.toISOString()}, so it cannot give a key a later expiry: a key grants a lifetime no longer than its own`,
      ]);
    }
    const expiresAt = asked ?? ceiling;
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
      const refusal = await this.apply(caller, request.accessKeyId, change);
      if (refusal) return refusal;
    }
    return rpcOk(null);
  }

  async delete(caller: Caller, request: AccessKeyIdRequest): Promise<RpcReply<null>> {
    if ((await this.managed(caller, request.accessKeyId)) === null) return noSuchKey(request.accessKeyId);
    return (await this.apply(caller, request.accessKeyId, { kind: 'delete' })) ?? rpcOk(null);
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

  private async apply(caller: Caller, accessKeyId: string, change: AccessKeyChange): Promise<RpcReply<null> | null> {
    const outcome = await this.lifecycle.changeKey(accessKeyId, change, { kind: 'key', accessKeyId: caller.accessKeyId });
    if (outcome === 'changed') return null;
    if (outcome === 'missing') return noSuchKey(accessKeyId);
    return refusalOf(accessKeyId, outcome);
  }
}

/** Why a change the caller may otherwise make breaks a rule of the lifecycle (judgeChange). */
function refusalOf(accessKeyId: string, refusal: AccessKeyChangeRefusal): RpcReply<null> {
  switch (refusal.rule) {
    case 'lastAllKey': {
      const [which, remedy] = refusal.withCreated
        ? [
            `key '${accessKeyId}' and the keys it created are the last enabled keys with ReplicationScope All (a key stops with the key that created it)`,
            "create or enable an All key it did not create first (an operator's: svc keys create --operations '*' --replications all --over-bus)",
          ]
        : [`key '${accessKeyId}' is the last enabled key with ReplicationScope All`, 'create or enable another All key first'];
      return rpcError(ErrorCode.Conflict, [`${ACCESS_KEY_ID}: ${which}: ${remedy}, so that keys can still be managed`]);
    }
    case 'disabledByWider':
      return rpcError(ErrorCode.Forbidden, [
        refusal.width === 'Operator'
          ? `${STATUS}: key '${accessKeyId}' was disabled by an operator on the bus: only an operator enables it again (svc keys enable --access-key-id … --over-bus)`
          : `${STATUS}: key '${accessKeyId}' was disabled by a key with ReplicationScope ${refusal.width}: only a key of scope ${refusal.width} enables it again`,
      ]);
    case 'outlivesActor': {
      const until = refusal.actorExpiresAt.toISOString();
      return rpcError(ErrorCode.Forbidden, [
        refusal.own
          ? `${EXPIRES_AT}: a key may only shorten its own lifetime: this key expires at ${until}`
          : `${EXPIRES_AT}: this key expires at ${until}, so it cannot give a key a later expiry, nor Never: a key grants a lifetime no longer than its own`,
      ]);
    }
    case 'actorStopped':
      return rpcError(ErrorCode.Forbidden, ['the calling access key was disabled, expired or deleted meanwhile: it may not act']);
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
    // When it stops signing: its own expiry or a creator's, whichever comes first.
    expiresAt: key.effective.expiresAt?.toISOString() ?? null,
    previousSecretValidUntil: key.previousSecretValidUntil?.toISOString() ?? null,
  };
}
