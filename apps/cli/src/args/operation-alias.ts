import { OPERATIONS, type OperationName } from '@svc/contracts';

/** Short command names for the API operations. */
export const OPERATION_ALIASES: Readonly<Record<string, OperationName>> = {
  create: 'CreateWarehouseReplication',
  alter: 'AlterWarehouseReplication',
  describe: 'DescribeWarehouseReplication',
  list: 'ListWarehouseReplications',
  delete: 'DeleteWarehouseReplication',
  'stop-service': 'StopReplicationService',
  start: 'StartReplication',
  stop: 'StopReplication',
  'ack-alerts': 'AcknowledgeAlerts',
  'alter-configuration': 'AlterConfiguration',
  metrics: 'GetReplicationMetrics',
  validate: 'StartReplicationValidation',
  validation: 'DescribeReplicationValidation',
  repair: 'RepairReplication',
  'create-key': 'CreateAccessKey',
  'list-keys': 'ListAccessKeys',
  'update-key': 'UpdateAccessKey',
  'delete-key': 'DeleteAccessKey',
  'rotate-key': 'RotateAccessKey',
  'put-alert-target': 'PutAlertTarget',
  'list-alert-targets': 'ListAlertTargets',
  'delete-alert-target': 'DeleteAlertTarget',
};

/** An API operation name (any letter case) or an alias; undefined when it is neither. */
export function resolveOperation(nameOrAlias: string): OperationName | undefined {
  const wanted = nameOrAlias.trim().toLowerCase();
  const alias = OPERATION_ALIASES[wanted];
  if (alias !== undefined) return alias;
  return OPERATIONS.find((operation) => operation.toLowerCase() === wanted);
}
