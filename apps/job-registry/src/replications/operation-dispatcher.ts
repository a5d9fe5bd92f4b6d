import { Inject, Injectable } from '@nestjs/common';
import {
  ErrorCode,
  guardOperationEnvelope,
  rpcError,
  type AccessKeyOperationName,
  type OperationEnvelope,
  type OperationName,
  type OperationRequest,
  type OperationResponse,
  type RpcReply,
} from '@svc/contracts';
import { parseOperationRequest } from '@svc/api-model';
import { JsonLogger } from '@svc/logging';
import { AccessKeyRepository, ReplicationRepository, type AccessKeyListing, type AccessKeyStore, type ReplicationScope, type ReplicationStore } from '@svc/registry-store';
import { ReplicationMetricsService } from './replication-metrics.service';
import { ReplicationsService, type OperationCaller } from './replications.service';
import { ServiceControlService } from './service-control.service';
import { ValidationOperations } from './validation-operations';
import { replyingOnFailure } from '../rpc/unexpected-failure';
import { replicationNotFound } from './replication-errors';
import { AccessKeyOperations } from '../access-keys/access-key-operations.service';
import { AlertTargetOperations } from '../alerts/alert-target-operations.service';
import { SignatureVerifier } from '../access-keys/signature-verifier';
import { refusalOfKey, stoppedKeyMessage } from '../access-keys/key-refusals';

type OperationReply = RpcReply<OperationResponse<OperationName>>;

/** An operation message whose signature the registry verified: the caller is the key that signed it. */
type VerifiedCall = Omit<OperationEnvelope, 'signed'> & { accessKeyId: string };

/**
 * Entry point of every operation message: checks the envelope, verifies the caller's signature (the key acting is
 * the one that signed the call, whoever sent the message), re-validates the payload (the registry does not trust the
 * wire), routes it, and turns any unexpected exception into a generic error reply.
 */
@Injectable()
export class OperationDispatcher {
  constructor(
    @Inject(ReplicationsService) private readonly replications: ReplicationsService,
    @Inject(ServiceControlService) private readonly serviceControl: ServiceControlService,
    @Inject(ReplicationMetricsService) private readonly metrics: ReplicationMetricsService,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
    @Inject(AccessKeyRepository) private readonly keys: Pick<AccessKeyStore, 'scopeOf' | 'mayReadErrorDetails' | 'get'>,
    @Inject(ReplicationRepository) private readonly owners: Pick<ReplicationStore, 'ownerOf'>,
    @Inject(AccessKeyOperations) private readonly accessKeys: AccessKeyOperations,
    @Inject(ValidationOperations) private readonly validations: ValidationOperations,
    @Inject(SignatureVerifier) private readonly signatures: Pick<SignatureVerifier, 'verify'>,
    @Inject(AlertTargetOperations) private readonly alertTargets: Pick<AlertTargetOperations, 'put' | 'list' | 'delete'>,
  ) {}

  async handle(message: unknown): Promise<OperationReply> {
    const guarded = guardOperationEnvelope(message);
    if (!guarded.ok) {
      this.logger.warn('malformed operation message', { problems: guarded.problems });
      return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    }
    const { signed, ...envelope } = guarded.value;
    return replyingOnFailure(this.logger, { operation: envelope.operation, requestId: envelope.requestId, replicationId: replicationIdOf(envelope) }, async () => {
      const startedAt = Date.now();
      const verdict = await this.signatures.verify(envelope.operation, signed);
      if (!verdict.ok) {
        this.logger.warn('operation message refused: its signature does not prove a key allowed to call it', { operation: envelope.operation, requestId: envelope.requestId });
        return rpcError(ErrorCode.Forbidden, verdict.messages);
      }
      const call: VerifiedCall = { ...envelope, accessKeyId: verdict.accessKeyId };
      // The access key id is not secret, but the logger redacts fields named like 'accessKey'; log it as the caller.
      const context = { operation: call.operation, requestId: call.requestId, caller: call.accessKeyId };
      const reply = await this.dispatch(call);
      this.logger.info('operation handled', {
        ...context,
        replicationId: replicationIdOf(call, reply),
        outcome: reply.ok ? 'ok' : reply.error.code,
        durationMs: Date.now() - startedAt,
      });
      return reply;
    });
  }

  /**
   * The registry decides what a key may act on and read, whatever the gateway checked (a key's error-detail permission
   * too: Describe shows what servers said of failures only to keys allowed ERROR_DETAILS_PERMISSION): a key limited to its own replications
   * ('Own', the default of created keys) sees and changes only the replications it created — another one is
   * answered exactly as one that does not exist — and cannot run the operations that act on every replication.
   */
  private async dispatch(envelope: VerifiedCall): Promise<OperationReply> {
    const scope = await this.keys.scopeOf(envelope.accessKeyId);
    if (scope === null) {
      // Its signature held (the gateway checked it, perhaps from its cache): say why the key may not act now.
      const key = await this.keys.get(envelope.accessKeyId);
      return rpcError(ErrorCode.Forbidden, [refusalOfKey(envelope.accessKeyId, key) ?? stoppedKeyMessage(envelope.accessKeyId, null)]);
    }
    const author: OperationCaller = { requestId: envelope.requestId, accessKeyId: envelope.accessKeyId, scope };
    const owned = <T>(replicationId: string, run: () => Promise<RpcReply<T>>): Promise<RpcReply<T>> =>
      this.mayActOn(scope, envelope.accessKeyId, replicationId).then((may) => (may ? run() : replicationNotFound<T>(replicationId)));
    const serviceWide = <T>(run: () => Promise<RpcReply<T>>): Promise<RpcReply<T>> =>
      scope === 'All' ? run() : Promise.resolve(everyReplicationNeeded<T>(envelope.operation));
    const { payload } = envelope;
    switch (envelope.operation) {
      case 'CreateWarehouseReplication':
        return withRequest('CreateWarehouseReplication', payload, (request) => this.replications.create(request, author));
      case 'AlterWarehouseReplication':
        return withRequest('AlterWarehouseReplication', payload, (request) => owned(request.replicationId, () => this.replications.alter(request, author)));
      case 'DescribeWarehouseReplication':
        return withRequest('DescribeWarehouseReplication', payload, (request) =>
          owned(request.replicationId, async () => this.replications.describe(request.replicationId, { errorDetails: await this.keys.mayReadErrorDetails(envelope.accessKeyId) })),
        );
      case 'ListWarehouseReplications':
        return withRequest('ListWarehouseReplications', payload, () => this.replications.list(scope === 'Own' ? envelope.accessKeyId : undefined));
      case 'DeleteWarehouseReplication':
        return withRequest('DeleteWarehouseReplication', payload, (request) => owned(request.replicationId, () => this.replications.delete(request.replicationId)));
      case 'StopReplicationService':
        return withRequest('StopReplicationService', payload, () => serviceWide(() => this.serviceControl.stopService()));
      case 'StartReplication':
        return withRequest('StartReplication', payload, (request) => {
          const { replicationId } = request;
          return replicationId === undefined
            ? serviceWide(() => this.serviceControl.startService())
            : owned(replicationId, () => this.replications.start(replicationId, author));
        });
      case 'StopReplication':
        return withRequest('StopReplication', payload, (request) => owned(request.replicationId, () => this.replications.stop(request.replicationId, author)));
      case 'AcknowledgeAlerts':
        return withRequest('AcknowledgeAlerts', payload, (request) =>
          owned(request.replicationId, () => this.replications.acknowledgeAlerts(request.replicationId, request.alertIds ?? null, envelope.accessKeyId)),
        );
      case 'AlterConfiguration':
        return withRequest('AlterConfiguration', payload, (request) => serviceWide(() => this.serviceControl.alterConfiguration(request)));
      case 'GetReplicationMetrics':
        return withRequest('GetReplicationMetrics', payload, (request) => owned(request.replicationId, () => this.metrics.metrics(request)));
      case 'StartReplicationValidation':
        return withRequest('StartReplicationValidation', payload, (request) =>
          owned(request.replicationId, () => this.validations.start(request, author)),
        );
      case 'DescribeReplicationValidation':
        return withRequest('DescribeReplicationValidation', payload, (request) =>
          owned(request.replicationId, () => this.validations.describe(request)),
        );
      case 'RepairReplication':
        return withRequest('RepairReplication', payload, (request) => owned(request.replicationId, () => this.validations.repair(request, author)));
      case 'CreateAccessKey':
        return withRequest('CreateAccessKey', payload, (request) => this.asCaller(envelope, (caller) => this.accessKeys.create(caller, request)));
      case 'ListAccessKeys':
        return withRequest('ListAccessKeys', payload, () => this.asCaller(envelope, (caller) => this.accessKeys.list(caller)));
      case 'UpdateAccessKey':
        return withRequest('UpdateAccessKey', payload, (request) => this.asCaller(envelope, (caller) => this.accessKeys.update(caller, request)));
      case 'DeleteAccessKey':
        return withRequest('DeleteAccessKey', payload, (request) => this.asCaller(envelope, (caller) => this.accessKeys.delete(caller, request)));
      case 'RotateAccessKey':
        return withRequest('RotateAccessKey', payload, (request) => this.asCaller(envelope, (caller) => this.accessKeys.rotate(caller, request)));
      case 'PutAlertTarget':
        return withRequest('PutAlertTarget', payload, (request) => serviceWide(() => this.alertTargets.put(request)));
      case 'ListAlertTargets':
        return withRequest('ListAlertTargets', payload, () => serviceWide(() => this.alertTargets.list()));
      case 'DeleteAlertTarget':
        return withRequest('DeleteAlertTarget', payload, (request) => serviceWide(() => this.alertTargets.delete(request.name)));
    }
  }

  /** Access key operations act for the calling key, within its rights. */
  private async asCaller<T>(
    envelope: VerifiedCall,
    run: (caller: AccessKeyListing) => Promise<RpcReply<T>>,
  ): Promise<RpcReply<T>> {
    const found = await this.accessKeys.callerFor<T>(envelope.accessKeyId, envelope.operation as AccessKeyOperationName);
    return 'refusal' in found ? found.refusal : run(found.caller);
  }

  private async mayActOn(scope: ReplicationScope, accessKeyId: string, replicationId: string): Promise<boolean> {
    return scope === 'All' || (await this.owners.ownerOf(replicationId)) === accessKeyId;
  }
}

function everyReplicationNeeded<T>(operation: OperationName): RpcReply<T> {
  return rpcError(ErrorCode.Forbidden, [
    `${operation} acts on every replication: it needs a key allowed every replication (svc keys create --replications all); this key acts on its own replications only`,
  ]);
}

async function withRequest<Op extends OperationName>(
  operation: Op,
  payload: unknown,
  run: (request: OperationRequest<Op>) => Promise<RpcReply<OperationResponse<Op>>>,
): Promise<RpcReply<OperationResponse<Op>>> {
  const parsed = parseOperationRequest(operation, payload);
  if (!parsed.ok) return rpcError(ErrorCode.ValidationFailed, parsed.messages);
  return run(parsed.value);
}

function replicationIdOf(envelope: Pick<OperationEnvelope, 'payload'>, reply?: OperationReply): string | undefined {
  const fromRequest = (envelope.payload as { replicationId?: unknown }).replicationId;
  if (typeof fromRequest === 'string') return fromRequest;
  const value = reply?.ok ? reply.value : null;
  const fromReply = typeof value === 'object' && value !== null ? (value as { replicationId?: unknown }).replicationId : undefined;
  return typeof fromReply === 'string' ? fromReply : undefined;
}
