import { Inject, Injectable } from '@nestjs/common';
import {
  ErrorCode,
  rpcError,
  rpcOk,
  type AlertTargetDescription,
  type ListAlertTargetsResponse,
  type PutAlertTargetRequest,
  type RpcReply,
} from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import { hostRefusal } from '@svc/connectors';
import { JsonLogger } from '@svc/logging';
import { AlertTargetRepository, ReplicationRepository, type AlertTargetListing, type AlertTargetStore, type ReplicationStore } from '@svc/registry-store';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { targetSpecOf } from './alert-target-spec';

/** Deliveries that gave up within this many hours are tried again when their target is replaced (fixed, perhaps). */
const REOPEN_HOURS = 24;

/** PutAlertTarget, ListAlertTargets, DeleteAlertTarget: service-wide, for keys of scope All. */
@Injectable()
export class AlertTargetOperations {
  constructor(
    @Inject(AlertTargetRepository) private readonly targets: AlertTargetStore,
    @Inject(ReplicationRepository) private readonly replications: Pick<ReplicationStore, 'ownerOf'>,
    @Inject(REGISTRY_CONFIG) private readonly config: Pick<RegistryConfig, 'allowLoopbackTargets'>,
    private readonly logger: JsonLogger,
  ) {}

  async put(request: PutAlertTargetRequest): Promise<RpcReply<null>> {
    const stored = await this.targets.get(request.name);
    const built = targetSpecOf(request, stored?.spec ?? null);
    if ('problems' in built) return rpcError(ErrorCode.ValidationFailed, built.problems);
    const problems = [...(await this.hostProblems(request)), ...(await this.replicationProblems(request.replicationIds ?? []))];
    if (problems.length > 0) return rpcError(ErrorCode.ValidationFailed, problems);
    const outcome = await this.targets.put(
      { name: request.name, spec: built.spec, alertKinds: request.alertKinds ?? null, replicationIds: request.replicationIds?.map((id) => id.toLowerCase()) ?? null },
      REOPEN_HOURS,
    );
    this.logger.info('alert target stored', { target: request.name, type: request.type, outcome });
    return rpcOk(null);
  }

  async list(): Promise<RpcReply<ListAlertTargetsResponse>> {
    return rpcOk({ alertTargets: (await this.targets.list()).map(describeTarget) });
  }

  async delete(name: string): Promise<RpcReply<null>> {
    if (!(await this.targets.delete(name))) return rpcError(ErrorCode.NotFound, [`${fieldLabel(['name'])}: alert target '${name}' does not exist`]);
    this.logger.info('alert target deleted', { target: name });
    return rpcOk(null);
  }

  /** A webhook or SMTP server the service may not reach by the rule of connection strings (no metadata, loopback only when allowed). */
  private async hostProblems(request: PutAlertTargetRequest): Promise<string[]> {
    const field = request.type === 'Webhook' ? 'url' : request.type === 'Email' ? 'smtpUrl' : null;
    const url = field === 'url' ? request.url : field === 'smtpUrl' ? request.smtpUrl : undefined;
    if (field === null || url === undefined) return [];
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    const refusal = await hostRefusal(host, this.config.allowLoopbackTargets);
    if (refusal !== null) return [`${fieldLabel([field])}: ${refusal}`];
    if (field === 'url' && new URL(url).protocol === 'http:' && (await hostRefusal(host, false)) === null) {
      return [`${fieldLabel([field])}: must be https:// (http only reaches a loopback receiver of a development setup)`];
    }
    return [];
  }

  private async replicationProblems(replicationIds: readonly string[]): Promise<string[]> {
    const problems: string[] = [];
    for (const replicationId of replicationIds) {
      if ((await this.replications.ownerOf(replicationId)) === undefined) problems.push(`${fieldLabel(['replicationIds'])}: replication '${replicationId}' does not exist`);
    }
    return problems;
  }
}

function describeTarget(target: AlertTargetListing): AlertTargetDescription {
  const { settings } = target;
  return {
    name: target.name,
    type: target.type,
    ...(settings.endpoint !== undefined && { endpoint: settings.endpoint }),
    ...(settings.topicArn !== undefined && { topicArn: settings.topicArn }),
    ...(settings.smtpServer !== undefined && { smtpServer: settings.smtpServer }),
    ...(settings.from !== undefined && { from: settings.from }),
    ...(settings.to !== undefined && { to: settings.to }),
    alertKinds: target.alertKinds,
    replicationIds: target.replicationIds,
    createdAt: target.createdAt.toISOString(),
    updatedAt: target.updatedAt.toISOString(),
    deliveries: target.deliveries,
  };
}
