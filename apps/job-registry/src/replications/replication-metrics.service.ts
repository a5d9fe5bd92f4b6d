import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, parseTableKey, rpcError, rpcOk, tableKey, type ReplicationMetricsRequest, type ReplicationMetricsResponse, type RpcReply } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import {
  MetricsHistoryRepository,
  ReplicationRepository,
  TableStateRepository,
  type MetricsHistoryStore,
  type ReplicationStore,
  type TableStateStore,
} from '@svc/registry-store';
import { metricsWindow } from './metrics-window';
import { replicationNotFound } from './replication-errors';

const TABLE_NAME = fieldLabel(['tableName']);

/** GetReplicationMetrics: a replication's lag, rows applied and cycle durations over time, per table. */
@Injectable()
export class ReplicationMetricsService {
  constructor(
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
    @Inject(TableStateRepository) private readonly tableStates: TableStateStore,
    @Inject(MetricsHistoryRepository) private readonly history: MetricsHistoryStore,
  ) {}

  async metrics(request: ReplicationMetricsRequest, now = new Date()): Promise<RpcReply<ReplicationMetricsResponse>> {
    const window = metricsWindow(request, now);
    if ('problem' in window) return rpcError(ErrorCode.ValidationFailed, [window.problem]);
    const { replicationId } = request;
    if (!(await this.replications.get(replicationId))) return replicationNotFound(replicationId);
    let tableName: string | undefined;
    if (request.tableName !== undefined) {
      const table = parseTableKey(request.tableName);
      if (!table) return rpcError(ErrorCode.ValidationFailed, [`${TABLE_NAME}: must be one table named as Describe names it, e.g. [dbo].[Orders]`]);
      tableName = tableKey(table);
      const known = (await this.tableStates.listByReplication(replicationId)).some((state) => state.name === tableName);
      if (!known) return rpcError(ErrorCode.NotFound, [`${TABLE_NAME}: table '${tableName}' is not part of replication '${replicationId}'`]);
    }
    const tables = await this.history.history({ replicationId, tableName, since: window.since, stepMinutes: window.stepMinutes });
    return rpcOk({ replicationId, sinceMinutes: window.sinceMinutes, stepMinutes: window.stepMinutes, tables });
  }
}
