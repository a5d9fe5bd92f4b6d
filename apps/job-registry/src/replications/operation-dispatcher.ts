import { Inject, Injectable } from '@nestjs/common';
import {
  ErrorCode,
  guardOperationEnvelope,
  rpcError,
  type OperationEnvelope,
  type OperationName,
  type OperationRequest,
  type OperationResponse,
  type RpcReply,
} from '@svc/contracts';
import { parseOperationRequest } from '@svc/api-model';
import { JsonLogger } from '@svc/logging';
import type { ChangeAuthor } from '@svc/registry-store';
import { ReplicationMetricsService } from './replication-metrics.service';
import { ReplicationsService } from './replications.service';
import { ServiceControlService } from './service-control.service';
import { replyingOnFailure } from '../rpc/unexpected-failure';

type OperationReply = RpcReply<OperationResponse<OperationName>>;

/**
 * Entry point of every operation message: checks the envelope, re-validates the payload (the registry does
 * not trust the wire), routes it, and turns any unexpected exception into a generic error reply.
 */
@Injectable()
export class OperationDispatcher {
  constructor(
    @Inject(ReplicationsService) private readonly replications: ReplicationsService,
    @Inject(ServiceControlService) private readonly serviceControl: ServiceControlService,
    @Inject(ReplicationMetricsService) private readonly metrics: ReplicationMetricsService,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  async handle(message: unknown): Promise<OperationReply> {
    const guarded = guardOperationEnvelope(message);
    if (!guarded.ok) {
      this.logger.warn('malformed operation message', { problems: guarded.problems });
      return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    }
    const envelope = guarded.value;
    // The access key id is not secret, but the logger redacts fields named like 'accessKey'; log it as the caller.
    const context = { operation: envelope.operation, requestId: envelope.requestId, caller: envelope.accessKeyId };
    return replyingOnFailure(this.logger, { ...context, replicationId: replicationIdOf(envelope) }, async () => {
      const startedAt = Date.now();
      const reply = await this.dispatch(envelope);
      this.logger.info('operation handled', {
        ...context,
        replicationId: replicationIdOf(envelope, reply),
        outcome: reply.ok ? 'ok' : reply.error.code,
        durationMs: Date.now() - startedAt,
      });
      return reply;
    });
  }

  private async dispatch(envelope: OperationEnvelope): Promise<OperationReply> {
    const author: ChangeAuthor = { requestId: envelope.requestId, accessKeyId: envelope.accessKeyId };
    const { payload } = envelope;
    switch (envelope.operation) {
      case 'CreateWarehouseReplication':
        return withRequest('CreateWarehouseReplication', payload, (request) => this.replications.create(request, author));
      case 'AlterWarehouseReplication':
        return withRequest('AlterWarehouseReplication', payload, (request) => this.replications.alter(request, author));
      case 'DescribeWarehouseReplication':
        return withRequest('DescribeWarehouseReplication', payload, (request) => this.replications.describe(request.replicationId));
      case 'ListWarehouseReplications':
        return withRequest('ListWarehouseReplications', payload, () => this.replications.list());
      case 'DeleteWarehouseReplication':
        return withRequest('DeleteWarehouseReplication', payload, (request) => this.replications.delete(request.replicationId));
      case 'StopReplicationService':
        return withRequest('StopReplicationService', payload, () => this.serviceControl.stopService());
      case 'StartReplication':
        return withRequest('StartReplication', payload, (request) =>
          request.replicationId === undefined ? this.serviceControl.startService() : this.replications.start(request.replicationId, author),
        );
      case 'AlterConfiguration':
        return withRequest('AlterConfiguration', payload, (request) => this.serviceControl.alterConfiguration(request));
      case 'GetReplicationMetrics':
        return withRequest('GetReplicationMetrics', payload, (request) => this.metrics.metrics(request));
    }
  }
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

function replicationIdOf(envelope: OperationEnvelope, reply?: OperationReply): string | undefined {
  const fromRequest = (envelope.payload as { replicationId?: unknown }).replicationId;
  if (typeof fromRequest === 'string') return fromRequest;
  const value = reply?.ok ? reply.value : null;
  const fromReply = typeof value === 'object' && value !== null ? (value as { replicationId?: unknown }).replicationId : undefined;
  return typeof fromReply === 'string' ? fromReply : undefined;
}
