import { ADMIN_KEY, callSigned, type ApiResponse, type TestStack } from '@svc/system-testing';

export interface TableStatusJson {
  name: string;
  phase: string;
  rowsSeeded: number;
  /** While a chunked seed is under way. */
  seedChunksLoaded?: number | null;
  seedChunks?: number | null;
  lastVersion: string | null;
  /** Absent or null when the table has no error. */
  lastError?: string | null;
  /** When the table's last unit of work ended. */
  lastCycleAt?: string | null;
  /** How long the table's unit of work has been in flight; absent when none is. */
  inFlightSeconds?: number;
  /** The table's last finished validation; absent before any. */
  lastValidation?: { validationId: string; state: string; mismatchedKeys: number; endedAt: string };
}

export interface DescribeJson {
  replicationName: string;
  status: string;
  lastError?: string | null;
  configuration: {
    source: { connectionString: string };
    warehouse: { bucketFolderName: string; scdType: string };
    changeTrackingBatchLimit: number;
    dataReplication: boolean;
    schemaReplication: boolean;
    tablesToInclude: unknown;
  };
  tables: TableStatusJson[];
  alerts: {
    alertId: string;
    kind: string;
    message: string;
    state: string;
    tableName?: string;
    resolution?: string;
    deliveries?: { target: string; state: string; attempts: number; lastError?: string }[];
  }[];
}

/** DescribeWarehouseReplication through the signed API (JSON), whatever it answers. */
export function describeResponse(stack: TestStack, replicationId: string): Promise<ApiResponse> {
  return callSigned(stack.baseUrl, 'DescribeWarehouseReplication', 'json', JSON.stringify({ replicationId }), ADMIN_KEY);
}

/** DescribeWarehouseReplication through the signed API (JSON); throws unless it answers 200. */
export async function describeReplication(stack: TestStack, replicationId: string): Promise<DescribeJson> {
  const response = await describeResponse(stack, replicationId);
  if (response.status !== 200) throw new Error(`Describe answered ${response.status}: ${response.body}`);
  return JSON.parse(response.body) as DescribeJson;
}

/** AlterWarehouseReplication (JSON) with the given fields; the caller checks the status. */
export function alterReplication(stack: TestStack, replicationId: string, fields: Record<string, unknown>): Promise<ApiResponse> {
  return callSigned(stack.baseUrl, 'AlterWarehouseReplication', 'json', JSON.stringify({ replicationId, ...fields }), ADMIN_KEY);
}

/** DeleteWarehouseReplication (JSON); the caller checks the status. */
export function deleteReplication(stack: TestStack, replicationId: string): Promise<ApiResponse> {
  return callSigned(stack.baseUrl, 'DeleteWarehouseReplication', 'json', JSON.stringify({ replicationId }), ADMIN_KEY);
}

/** The services' latest warning and error lines, to show when a wait times out. */
export function recentWarnings(stack: TestStack, count = 15): string[] {
  return stack
    .logs()
    .split('\n')
    .filter((line) => /"level":"(warn|error)"/.test(line))
    .slice(-count);
}

/** Any service's latest lines (every level) that name `text`: what the services did with a table whose work seems stuck. */
export function recentLinesNaming(stack: TestStack, text: string, count = 20): string[] {
  const escaped = JSON.stringify(text).slice(1, -1);
  return stack
    .logs()
    .split('\n')
    .filter((line) => line.includes(escaped))
    .slice(-count);
}

export interface TableValidationJson {
  name: string;
  state: string;
  /** Absent when the table has none (the API leaves nulls out). */
  reason?: string;
  rowsCompared: number;
  mismatchedKeys: number;
  unsettledKeys: number;
  startedAt?: string;
  endedAt?: string;
  /** Each key as its columns' names and values (a NULL column has no value). */
  differingKeys: { key: { name: string; value?: string }[]; difference: string }[];
}

const FINAL_VALIDATION_STATES = new Set(['Validated', 'Mismatched', 'Repaired', 'Failed', 'Skipped']);

/** StartReplicationValidation (JSON); the ValidationId. */
export async function startValidation(stack: TestStack, replicationId: string, tablesToInclude?: string[]): Promise<string> {
  const body = JSON.stringify({ replicationId, ...(tablesToInclude !== undefined && { tablesToInclude: tablesToInclude.join(',') }) });
  const started = await callSigned(stack.baseUrl, 'StartReplicationValidation', 'json', body, ADMIN_KEY);
  if (started.status !== 200) throw new Error(`StartReplicationValidation answered ${started.status}: ${started.body}`);
  return (JSON.parse(started.body) as { validationId: string }).validationId;
}

/** DescribeReplicationValidation (JSON) until every table's state is final; each table's. */
export async function waitForValidation(stack: TestStack, replicationId: string, validationId: string, deadlineMs = 120000): Promise<TableValidationJson[]> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const described = await callSigned(stack.baseUrl, 'DescribeReplicationValidation', 'json', JSON.stringify({ replicationId, validationId }), ADMIN_KEY);
    if (described.status !== 200) throw new Error(`DescribeReplicationValidation answered ${described.status}: ${described.body}`);
    const { tables } = JSON.parse(described.body) as { tables: TableValidationJson[] };
    if (tables.every((table) => FINAL_VALIDATION_STATES.has(table.state))) return tables;
    if (Date.now() > deadline) throw new Error(`validation ${validationId} did not end within ${deadlineMs} ms: ${described.body}\n${recentWarnings(stack).join('\n')}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

/** A validation of the replication (of `tablesToInclude` only when given), waited for; each table's state and counts. */
export async function validateReplication(stack: TestStack, replicationId: string, deadlineMs = 120000, tablesToInclude?: string[]): Promise<TableValidationJson[]> {
  return waitForValidation(stack, replicationId, await startValidation(stack, replicationId, tablesToInclude), deadlineMs);
}

/** RepairReplication (JSON) of a validation's Mismatched tables, waited for; each table's state afterwards. */
export async function repairReplication(stack: TestStack, replicationId: string, validationId: string, deadlineMs = 180000): Promise<TableValidationJson[]> {
  const repaired = await callSigned(stack.baseUrl, 'RepairReplication', 'json', JSON.stringify({ replicationId, validationId }), ADMIN_KEY);
  if (repaired.status !== 200) throw new Error(`RepairReplication answered ${repaired.status}: ${repaired.body}`);
  return waitForValidation(stack, replicationId, validationId, deadlineMs);
}
