import type { OperationName } from '@svc/contracts';

/**
 * Whether each operation changes state. A signed call to one that does is accepted once: its signature, seen
 * again within the clock-skew window, is a replay. A new operation does not compile until it is classified here.
 */
const CHANGES_STATE: Readonly<Record<OperationName, boolean>> = {
  CreateWarehouseReplication: true,
  AlterWarehouseReplication: true,
  DeleteWarehouseReplication: true,
  StopReplicationService: true,
  StartReplication: true,
  StopReplication: true,
  AcknowledgeAlerts: true,
  AlterConfiguration: true,
  DescribeWarehouseReplication: false,
  ListWarehouseReplications: false,
  GetReplicationMetrics: false,
  StartReplicationValidation: true,
  DescribeReplicationValidation: false,
  RepairReplication: true,
  CreateAccessKey: true,
  UpdateAccessKey: true,
  DeleteAccessKey: true,
  RotateAccessKey: true,
  ListAccessKeys: false,
  PutAlertTarget: true,
  DeleteAlertTarget: true,
  ListAlertTargets: false,
};

export function changesState(operation: OperationName): boolean {
  return CHANGES_STATE[operation];
}
