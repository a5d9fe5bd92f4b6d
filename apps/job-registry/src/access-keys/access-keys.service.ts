import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import {
  ErrorCode,
  guardCreateAccessKeyRequest,
  guardManageAccessKeysRequest,
  guardSigningKeyRequest,
  rpcError,
  rpcOk,
  type AccessKeySummary,
  type CreateAccessKeyReply,
  type ManageAccessKeysReply,
  type RpcReply,
  type SigningKeyReply,
} from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { AccessKeyRepository, type AccessKeyListing, type AccessKeyStore } from '@svc/registry-store';
import { SVC4_SCHEME, deriveSigningKey } from '@svc/signing';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { replyingOnFailure } from '../rpc/unexpected-failure';
import { CredentialGenerator } from './credential-generator';

const CREATE_ATTEMPTS = 3;

/**
 * Access keys: the bootstrap key at start, signing keys for the gateway (the secret itself never leaves
 * the registry), and new keys whose secret is shown once.
 */
@Injectable()
export class AccessKeysService implements OnModuleInit {
  constructor(
    @Inject(AccessKeyRepository) private readonly keys: AccessKeyStore,
    @Inject(CredentialGenerator) private readonly generator: CredentialGenerator,
    @Inject(REGISTRY_CONFIG) private readonly config: Pick<RegistryConfig, 'region' | 'bootstrapAccessKey'>,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    const bootstrap = this.config.bootstrapAccessKey;
    if (!bootstrap) return;
    await this.keys.upsertBootstrap(bootstrap.accessKeyId, bootstrap.secretKey);
    this.logger.info('bootstrap access key ready', { keyId: bootstrap.accessKeyId });
  }

  signingKey(message: unknown): Promise<RpcReply<SigningKeyReply>> {
    return replyingOnFailure(this.logger, { request: 'signing key' }, () => this.deriveSigningKey(message));
  }

  manageAccessKeys(message: unknown): Promise<RpcReply<ManageAccessKeysReply>> {
    return replyingOnFailure(this.logger, { request: 'manage access keys' }, () => this.manage(message));
  }

  createAccessKey(message: unknown): Promise<RpcReply<CreateAccessKeyReply>> {
    return replyingOnFailure(this.logger, { request: 'create access key' }, () => this.createKey(message));
  }

  private async deriveSigningKey(message: unknown): Promise<RpcReply<SigningKeyReply>> {
    const guarded = guardSigningKeyRequest(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const { accessKeyId, date, region, service } = guarded.value;
    // Keys are derived only for this deployment's scope, so a leaked derived key is useless elsewhere.
    if (region !== this.config.region || service !== SIGNING_SERVICE_NAME) {
      return rpcError(ErrorCode.Forbidden, [`credential scope must name region '${this.config.region}' and service '${SIGNING_SERVICE_NAME}'`]);
    }
    const key = await this.keys.find(accessKeyId);
    if (!key) return rpcError(ErrorCode.Forbidden, ['unknown access key']);
    const signingKey = deriveSigningKey(SVC4_SCHEME, key.secretKey, { date, region, service });
    // During a rotation's overlap the replaced secret still signs, so that clients can move to the new one.
    const previous = key.previousSecretKey === undefined ? undefined : deriveSigningKey(SVC4_SCHEME, key.previousSecretKey, { date, region, service });
    return rpcOk({
      signingKeyHex: signingKey.toString('hex'),
      allowedOperations: key.allowedOperations,
      ...(previous !== undefined && { previousSigningKeyHex: previous.toString('hex') }),
    });
  }

  private async createKey(message: unknown): Promise<RpcReply<CreateAccessKeyReply>> {
    const guarded = guardCreateAccessKeyRequest(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const allowedOperations = [...new Set(guarded.value.allowedOperations)];
    const replicationScope = guarded.value.replicationScope ?? 'Own';
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      const accessKeyId = this.generator.accessKeyId();
      const secretKey = this.generator.secretKey();
      // An id collision (about 1 in 36^17) just draws again.
      if (await this.keys.create({ accessKeyId, secretKey, allowedOperations, replicationScope, description: guarded.value.description ?? '' })) {
        this.logger.info('access key created', { keyId: accessKeyId, allowedOperations, replicationScope });
        return rpcOk({ accessKeyId, secretKey, allowedOperations, replicationScope });
      }
    }
    throw new Error(`no free access key id after ${CREATE_ATTEMPTS} attempts`);
  }

  private async manage(message: unknown): Promise<RpcReply<ManageAccessKeysReply>> {
    const guarded = guardManageAccessKeysRequest(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const request = guarded.value;
    if (request.action === 'List') return rpcOk({ accessKeys: (await this.keys.list()).map(summaryOf) });
    const { accessKeyId } = request;
    if (accessKeyId === undefined) return rpcError(ErrorCode.ValidationFailed, [`accessKeyId: is required to ${request.action.toLowerCase()} a key`]);
    const unknown = rpcError<ManageAccessKeysReply>(ErrorCode.NotFound, [`accessKeyId: no access key '${accessKeyId}'`]);
    const done = (changed: boolean): RpcReply<ManageAccessKeysReply> => {
      if (changed) this.logger.info('access key changed', { keyId: accessKeyId, action: request.action });
      return changed ? rpcOk({}) : unknown;
    };
    switch (request.action) {
      case 'Disable':
      case 'Enable':
        return done(await this.keys.setDisabled(accessKeyId, request.action === 'Disable'));
      case 'Delete':
        return done(await this.keys.delete(accessKeyId));
      case 'Expire':
        if (request.expiresAt === undefined) return rpcError(ErrorCode.ValidationFailed, ['expiresAt: is required (an ISO timestamp, or null to clear it)']);
        return done(await this.keys.setExpiry(accessKeyId, request.expiresAt === null ? null : new Date(request.expiresAt)));
      case 'Rotate': {
        const secretKey = this.generator.secretKey();
        const previousValidUntil = new Date(Date.now() + (request.overlapMinutes ?? DEFAULT_ROTATION_OVERLAP_MINUTES) * 60_000);
        if (!(await this.keys.rotate(accessKeyId, secretKey, previousValidUntil))) return unknown;
        this.logger.info('access key rotated', { keyId: accessKeyId, previousValidUntil: previousValidUntil.toISOString() });
        return rpcOk({ secretKey, previousSecretValidUntil: previousValidUntil.toISOString() });
      }
    }
  }
}

/** How long a replaced secret keeps signing when a rotation does not say. */
const DEFAULT_ROTATION_OVERLAP_MINUTES = 60;

function summaryOf(key: AccessKeyListing): AccessKeySummary {
  const expired = key.expiresAt !== null && key.expiresAt <= new Date();
  return {
    accessKeyId: key.accessKeyId,
    allowedOperations: key.allowedOperations,
    replicationScope: key.replicationScope,
    description: key.description,
    bootstrap: key.bootstrap,
    status: key.disabled ? 'Disabled' : expired ? 'Expired' : 'Active',
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    previousSecretValidUntil: key.previousSecretValidUntil?.toISOString() ?? null,
  };
}
