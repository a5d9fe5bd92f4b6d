/** The operations the console calls (libs/contracts OPERATIONS plus GetReplicationMetrics; wire-types.spec.ts compares). */
export const CONSOLE_OPERATIONS = [
  'CreateWarehouseReplication',
  'AlterWarehouseReplication',
  'DescribeWarehouseReplication',
  'ListWarehouseReplications',
  'DeleteWarehouseReplication',
  'StopReplicationService',
  'StartReplication',
  'AlterConfiguration',
  'GetReplicationMetrics',
] as const;

export type ConsoleOperation = (typeof CONSOLE_OPERATIONS)[number];

/** Operations that change something: a key without them sees their buttons and forms disabled. */
export const ACTION_OPERATIONS = [
  'CreateWarehouseReplication',
  'AlterWarehouseReplication',
  'DeleteWarehouseReplication',
  'StopReplicationService',
  'StartReplication',
  'AlterConfiguration',
] as const satisfies readonly ConsoleOperation[];

export type ActionOperation = (typeof ACTION_OPERATIONS)[number];
