import { ACCESS_KEY_OPERATIONS, OPERATIONS, type AccessKeyOperationName, type OperationName } from '@svc/contracts/browser';

/** The operations the console calls: every API operation but the access keys' (managed with `svc keys`; the console has no keys page). */
export type ConsoleOperation = Exclude<OperationName, AccessKeyOperationName>;

function isConsoleOperation(operation: OperationName): operation is ConsoleOperation {
  return !(ACCESS_KEY_OPERATIONS as readonly string[]).includes(operation);
}

export const CONSOLE_OPERATIONS: readonly ConsoleOperation[] = OPERATIONS.filter(isConsoleOperation);

/** Operations that change something: a key without them sees their buttons and forms disabled. */
export const ACTION_OPERATIONS = [
  'CreateWarehouseReplication',
  'AlterWarehouseReplication',
  'DeleteWarehouseReplication',
  'StopReplicationService',
  'StartReplication',
  'AcknowledgeAlerts',
  'AlterConfiguration',
  'StartReplicationValidation',
  'RepairReplication',
] as const satisfies readonly ConsoleOperation[];

export type ActionOperation = (typeof ACTION_OPERATIONS)[number];
