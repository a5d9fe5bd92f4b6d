import {
  type OperationName,
  type OperationRequest,
  type ReplicationConfig,
} from '@svc/contracts';
import { AlertTargetNameDto, PutAlertTargetDto } from './dto/alert-target-requests.dto';
import { AccessKeyIdDto, CreateAccessKeyDto, RotateAccessKeyDto, UpdateAccessKeyDto } from './dto/access-key-requests.dto';
import { AlterReplicationDto, CreateReplicationDto, ReplicationConfigDto } from './dto/replication.dto';
import { AcknowledgeAlertsDto, AlterConfigurationDto, EmptyRequestDto, ReplicationIdDto, ReplicationMetricsDto, StartReplicationDto } from './dto/simple-requests.dto';
import { DescribeValidationDto, RepairValidationDto, StartValidationDto } from './dto/validation-requests.dto';
import { type ParseResult } from './parse-result';
import { validateModel } from './validate-model';

/** Each model class implements its operation's request interface; the mapped type checks that. */
export const REQUEST_MODELS: { [Op in OperationName]: new () => OperationRequest<Op> } = {
  CreateWarehouseReplication: CreateReplicationDto,
  AlterWarehouseReplication: AlterReplicationDto,
  DescribeWarehouseReplication: ReplicationIdDto,
  ListWarehouseReplications: EmptyRequestDto,
  DeleteWarehouseReplication: ReplicationIdDto,
  StopReplicationService: EmptyRequestDto,
  StartReplication: StartReplicationDto,
  StopReplication: ReplicationIdDto,
  AcknowledgeAlerts: AcknowledgeAlertsDto,
  AlterConfiguration: AlterConfigurationDto,
  GetReplicationMetrics: ReplicationMetricsDto,
  StartReplicationValidation: StartValidationDto,
  DescribeReplicationValidation: DescribeValidationDto,
  RepairReplication: RepairValidationDto,
  CreateAccessKey: CreateAccessKeyDto,
  ListAccessKeys: EmptyRequestDto,
  UpdateAccessKey: UpdateAccessKeyDto,
  DeleteAccessKey: AccessKeyIdDto,
  RotateAccessKey: RotateAccessKeyDto,
  PutAlertTarget: PutAlertTargetDto,
  ListAlertTargets: EmptyRequestDto,
  DeleteAlertTarget: AlertTargetNameDto,
};

/**
 * Validates a decoded request tree (lower camel keys, values raw or already canonical) and returns the
 * canonical request of `operation`, or one `{Group\Field}: reason` message per problem. Accepts its own
 * output, so the registry can re-check a payload it receives over NATS.
 */
export function parseOperationRequest<Op extends OperationName>(operation: Op, tree: unknown): ParseResult<OperationRequest<Op>> {
  return validateModel<OperationRequest<Op>>(REQUEST_MODELS[operation], tree);
}

/**
 * Re-checks a stored configuration after an Alter was merged into it: every Create rule, the AccessType
 * credential rules (a changed AccessType needs its own credentials and none of the other type's), a complete
 * ReseedingSchedule, RepeatIntervalInMinutes when IsContinuous is false and a complete schedule window.
 */
export function validateMergedConfig(config: ReplicationConfig): string[] {
  const result = validateModel(ReplicationConfigDto, config);
  return result.ok ? [] : result.messages;
}
