import {
  METRICS_DEFAULT_SINCE_MINUTES,
  METRICS_HISTORY_MINUTES,
  METRICS_MAX_POINTS,
  type AlterConfigurationRequest,
  type EmptyRequest,
  type ReplicationMetricsRequest,
  type ReplicationIdRequest,
  type StartReplicationRequest,
  type AcknowledgeAlertsRequest,
} from '@svc/contracts';
import { Field } from './decorators';
import { guid, guidList } from '../rules/guid';
import { booleanText, integerBetween, positiveInteger } from '../rules/scalar-rules';
import { textRule } from '../rules/text-rules';

/** Describe and Delete. */
export class ReplicationIdDto implements ReplicationIdRequest {
  @Field(guid, 'required') replicationId!: string;
}

/** Without an id it resumes the whole service; with one, that replication. */
export class StartReplicationDto implements StartReplicationRequest {
  @Field(guid, 'optional', { default: 'every replication, and the service as a whole, resume' }) replicationId?: string;
}

/** AcknowledgeAlerts: the replication's active alerts named, or all of them. */
export class AcknowledgeAlertsDto implements AcknowledgeAlertsRequest {
  @Field(guid, 'required') replicationId!: string;
  @Field(guidList('AlertId'), 'optional', { default: "every active alert of the replication", note: 'The alerts to acknowledge, as Describe lists them (AlertId)' })
  alertIds?: string[];
}

/** List and StopReplicationService take no fields: every field given is unknown. */
export class EmptyRequestDto implements EmptyRequest {
  [field: string]: never;
}

export class AlterConfigurationDto implements AlterConfigurationRequest {
  @Field(booleanText, {
    requiredWhen: (request) => request['parallelDatabaseReplicationsLimit'] === undefined,
    reason: 'is required unless ParallelDatabaseReplicationsLimit is given',
  }, { default: 'unchanged', note: 'true: one replication moves data at a time' })
  serializeReplications?: boolean;
  @Field(positiveInteger, 'optional', { default: 'unchanged', note: 'How many replications move data at the same time' })
  parallelDatabaseReplicationsLimit?: number;
}

/** GetReplicationMetrics: one replication's history, of one table or all, over the last SinceMinutes. */
export class ReplicationMetricsDto implements ReplicationMetricsRequest {
  @Field(guid, 'required') replicationId!: string;
  @Field(textRule(), 'optional', { default: 'every table', note: 'One table of the replication, written [schema].[table]' }) tableName?: string;
  @Field(integerBetween(1, METRICS_HISTORY_MINUTES), 'optional', { default: String(METRICS_DEFAULT_SINCE_MINUTES), note: 'Minutes of history' })
  sinceMinutes?: number;
  @Field(integerBetween(1, METRICS_HISTORY_MINUTES), 'optional', {
    default: `the smallest step that keeps each table within ${METRICS_MAX_POINTS} points`,
    note: 'Minutes per point',
  })
  stepMinutes?: number;
}
