import {
  METRICS_HISTORY_MINUTES,
  type AlterConfigurationRequest,
  type EmptyRequest,
  type ReplicationMetricsRequest,
  type ReplicationIdRequest,
  type StartReplicationRequest,
} from '@svc/contracts';
import { Field } from './decorators';
import { guid } from '../rules/guid';
import { booleanText, integerBetween, positiveInteger } from '../rules/scalar-rules';
import { textRule } from '../rules/text-rules';

/** Describe and Delete. */
export class ReplicationIdDto implements ReplicationIdRequest {
  @Field(guid, 'required') replicationId!: string;
}

/** Without an id it resumes the whole service; with one, that replication. */
export class StartReplicationDto implements StartReplicationRequest {
  @Field(guid, 'optional') replicationId?: string;
}

/** List and StopReplicationService take no fields: every field given is unknown. */
export class EmptyRequestDto implements EmptyRequest {
  [field: string]: never;
}

export class AlterConfigurationDto implements AlterConfigurationRequest {
  @Field(booleanText, {
    requiredWhen: (request) => request['parallelDatabaseReplicationsLimit'] === undefined,
    reason: 'is required unless ParallelDatabaseReplicationsLimit is given',
  })
  serializeReplications?: boolean;
  @Field(positiveInteger, 'optional') parallelDatabaseReplicationsLimit?: number;
}

/** GetReplicationMetrics: one replication's history, of one table or all, over the last SinceMinutes. */
export class ReplicationMetricsDto implements ReplicationMetricsRequest {
  @Field(guid, 'required') replicationId!: string;
  @Field(textRule(), 'optional') tableName?: string;
  @Field(integerBetween(1, METRICS_HISTORY_MINUTES), 'optional') sinceMinutes?: number;
  @Field(integerBetween(1, METRICS_HISTORY_MINUTES), 'optional') stepMinutes?: number;
}
