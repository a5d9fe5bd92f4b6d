import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  DEFAULT_ROTATION_OVERLAP_MINUTES,
  ErrorCode,
  guardCreateAccessKeyRequest,
  guardManageAccessKeysRequest,
  rpcError,
  rpcOk,
  type AccessKeySummary,
  type CreateAccessKeyReply,
  type ManageAccessKeysReply,
  type RpcReply,
} from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import {
  AccessKeyRepository,
  type AccessKeyChange,
  type AccessKeyChangeOutcome,
  type AccessKeyListing,
  type AccessKeyStore,
  type KeyActor,
  type NewAccessKey,
} from '@svc/registry-store';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { replyingOnFailure } from '../rpc/unexpected-failure';
import { CredentialGenerator } from './credential-generator';

const CREATE_ATTEMPTS = 3;

/** Access keys: the bootstrap key at start, and new keys whose secret is shown once (SignatureVerifier checks calls). */
@Injectable()
export class AccessKeysService implements OnModuleInit {
  constructor(
    @Inject(AccessKeyRepository) private readonly keys: AccessKeyStore,
    @Inject(CredentialGenerator) private readonly generator: CredentialGenerator,
    @Inject(REGISTRY_CONFIG) private readonly config: Pick<RegistryConfig, 'bootstrapAccessKey'>,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    const bootstrap = this.config.bootstrapAccessKey;
    if (!bootstrap) return;
    await this.keys.upsertBootstrap(bootstrap.accessKeyId, bootstrap.secretKey);
    this.logger.info('bootstrap access key ready', { keyId: bootstrap.accessKeyId });
  }

  manageAccessKeys(message: unknown): Promise<RpcReply<ManageAccessKeysReply>> {
    return replyingOnFailure(this.logger, { request: 'manage access keys' }, () => this.manage(message));
  }

  createAccessKey(message: unknown): Promise<RpcReply<CreateAccessKeyReply>> {
    return replyingOnFailure(this.logger, { request: 'create access key' }, () => this.createKey(message));
  }

  /** A new key, stored with its secret sealed; the secret is in the answer only. Both the bus and the API create here. */
  async issueKey(key: Omit<NewAccessKey, 'accessKeyId' | 'secretKey'>): Promise<{ accessKeyId: string; secretKey: string }> {
    const allowedOperations = [...new Set(key.allowedOperations)];
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      const accessKeyId = this.generator.accessKeyId();
      const secretKey = this.generator.secretKey();
      // An id collision (about 1 in 36^17) just draws again.
      if (await this.keys.create({ ...key, accessKeyId, secretKey, allowedOperations })) {
        this.logger.info('access key created', {
          keyId: accessKeyId,
          allowedOperations,
          replicationScope: key.replicationScope,
          ...(key.createdBy != null && { createdBy: key.createdBy }),
        });
        return { accessKeyId, secretKey };
      }
    }
    throw new Error(`no free access key id after ${CREATE_ATTEMPTS} attempts`);
  }

  listKeys(): Promise<AccessKeyListing[]> {
    return this.keys.list();
  }

  /** `actor`: a key over the signed API, held to its rules (judgeChange), or an operator on the bus. */
  async changeKey(accessKeyId: string, change: AccessKeyChange, actor: KeyActor): Promise<AccessKeyChangeOutcome> {
    const outcome = await this.keys.change(accessKeyId, change, actor);
    if (outcome === 'changed') {
      this.logger.info('access key changed', { keyId: accessKeyId, change: change.kind, ...changeDetails(change), by: actor.kind === 'key' ? actor.accessKeyId : 'operator' });
    }
    return outcome;
  }

  /** A new secret (shown once); the replaced one keeps signing for the overlap. null for a key that does not exist. */
  async rotateKey(accessKeyId: string, overlapMinutes = DEFAULT_ROTATION_OVERLAP_MINUTES): Promise<{ secretKey: string; previousValidUntil: Date } | null> {
    const secretKey = this.generator.secretKey();
    const previousValidUntil = new Date(Date.now() + overlapMinutes * 60_000);
    if (!(await this.keys.rotate(accessKeyId, secretKey, previousValidUntil))) return null;
    this.logger.info('access key rotated', { keyId: accessKeyId, previousValidUntil: previousValidUntil.toISOString() });
    return { secretKey, previousValidUntil };
  }

  private async createKey(message: unknown): Promise<RpcReply<CreateAccessKeyReply>> {
    const guarded = guardCreateAccessKeyRequest(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const allowedOperations = [...new Set(guarded.value.allowedOperations)];
    const replicationScope = guarded.value.replicationScope ?? 'Own';
    const created = await this.issueKey({ allowedOperations, replicationScope, description: guarded.value.description ?? '', createdBy: null, expiresAt: null });
    return rpcOk({ ...created, allowedOperations, replicationScope });
  }

  private async manage(message: unknown): Promise<RpcReply<ManageAccessKeysReply>> {
    const guarded = guardManageAccessKeysRequest(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const request = guarded.value;
    if (request.action === 'List') return rpcOk({ accessKeys: (await this.listKeys()).map(summaryOf) });
    const { accessKeyId } = request;
    if (accessKeyId === undefined) return rpcError(ErrorCode.ValidationFailed, [`accessKeyId: is required to ${request.action.toLowerCase()} a key`]);
    const unknown = rpcError<ManageAccessKeysReply>(ErrorCode.NotFound, [`accessKeyId: no access key '${accessKeyId}'`]);
    // An operator on the bus is not held to the API's rules (a usable All key remains, who may enable, how long a key lives): it is the way back in.
    const done = async (change: AccessKeyChange): Promise<RpcReply<ManageAccessKeysReply>> =>
      (await this.changeKey(accessKeyId, change, { kind: 'operator' })) === 'changed' ? rpcOk({}) : unknown;
    switch (request.action) {
      case 'Disable':
      case 'Enable':
        return done({ kind: 'status', disabled: request.action === 'Disable' });
      case 'Delete':
        return done({ kind: 'delete' });
      case 'Expire':
        if (request.expiresAt === undefined) return rpcError(ErrorCode.ValidationFailed, ['expiresAt: is required (an ISO timestamp, or null to clear it)']);
        return done({ kind: 'expiry', expiresAt: request.expiresAt === null ? null : new Date(request.expiresAt) });
      case 'Rotate': {
        const rotated = await this.rotateKey(accessKeyId, request.overlapMinutes);
        return rotated ? rpcOk({ secretKey: rotated.secretKey, previousSecretValidUntil: rotated.previousValidUntil.toISOString() }) : unknown;
      }
    }
  }
}

function changeDetails(change: AccessKeyChange): Record<string, unknown> {
  if (change.kind === 'status') return { disabled: change.disabled };
  if (change.kind === 'expiry') return { expiresAt: change.expiresAt?.toISOString() ?? null };
  return {};
}

/** Active, Disabled or Expired, as both the bus and the API list keys: given its creators (a key stops with them). */
export function keyStatusOf(key: AccessKeyListing, now = new Date()): AccessKeySummary['status'] {
  if (key.effective.disabled) return 'Disabled';
  return key.effective.expiresAt !== null && key.effective.expiresAt <= now ? 'Expired' : 'Active';
}

function summaryOf(key: AccessKeyListing): AccessKeySummary {
  return {
    accessKeyId: key.accessKeyId,
    allowedOperations: key.allowedOperations,
    replicationScope: key.replicationScope,
    description: key.description,
    bootstrap: key.bootstrap,
    status: keyStatusOf(key),
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.effective.expiresAt?.toISOString() ?? null,
    previousSecretValidUntil: key.previousSecretValidUntil?.toISOString() ?? null,
  };
}
