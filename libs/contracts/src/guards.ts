import { isOperationName } from './replication/operations';
import type { OperationEnvelope, SigningKeyRequest, CreateAccessKeyRequest } from './rpc/envelope';
import type { ReleaseTablesRequest } from './pipeline/messages';
import type { TableRef } from './pipeline/table';

/** Structural checks for inbound messages. Payload fields are validated by the API model afterwards. */
export type Guarded<T> = { ok: true; value: T } | { ok: false; problems: string[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

export function guardOperationEnvelope(message: unknown): Guarded<OperationEnvelope> {
  if (!isRecord(message)) return { ok: false, problems: ['message: must be an object'] };
  const problems: string[] = [];
  if (!nonEmptyString(message['requestId'])) problems.push('requestId: must be a non-empty string');
  if (!nonEmptyString(message['accessKeyId'])) problems.push('accessKeyId: must be a non-empty string');
  if (typeof message['operation'] !== 'string' || !isOperationName(message['operation'])) {
    problems.push('operation: must name a known operation');
  }
  if (!isRecord(message['payload'])) problems.push('payload: must be an object');
  return problems.length ? { ok: false, problems } : { ok: true, value: message as unknown as OperationEnvelope };
}

export function guardSigningKeyRequest(message: unknown): Guarded<SigningKeyRequest> {
  if (!isRecord(message)) return { ok: false, problems: ['message: must be an object'] };
  const problems: string[] = [];
  if (!nonEmptyString(message['accessKeyId'])) problems.push('accessKeyId: must be a non-empty string');
  if (typeof message['date'] !== 'string' || !/^\d{8}$/.test(message['date'])) problems.push('date: must be yyyymmdd');
  if (!nonEmptyString(message['region'])) problems.push('region: must be a non-empty string');
  if (!nonEmptyString(message['service'])) problems.push('service: must be a non-empty string');
  return problems.length ? { ok: false, problems } : { ok: true, value: message as unknown as SigningKeyRequest };
}

export function guardCreateAccessKeyRequest(message: unknown): Guarded<CreateAccessKeyRequest> {
  if (!isRecord(message)) return { ok: false, problems: ['message: must be an object'] };
  const problems: string[] = [];
  const ops = message['allowedOperations'];
  if (!Array.isArray(ops) || ops.length === 0) {
    problems.push('allowedOperations: must be a non-empty list');
  } else {
    for (const op of ops) {
      if (typeof op !== 'string' || (op !== '*' && !isOperationName(op))) {
        problems.push(`allowedOperations: '${String(op)}' is not '*' or an operation name`);
      }
    }
  }
  if (message['description'] !== undefined && typeof message['description'] !== 'string') {
    problems.push('description: must be a string');
  }
  return problems.length ? { ok: false, problems } : { ok: true, value: message as unknown as CreateAccessKeyRequest };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Internal requests naming one replication (runtime configuration, table discovery). */
export function guardReplicationIdMessage(message: unknown): Guarded<{ replicationId: string }> {
  const replicationId = isRecord(message) ? message['replicationId'] : undefined;
  return typeof replicationId === 'string' && isUuid(replicationId)
    ? { ok: true, value: { replicationId } }
    : { ok: false, problems: ['replicationId: must be a GUID'] };
}

/** Registry → extractor: the replication (a GUID) and the tables whose change tracking goes (a list, possibly empty). */
export function guardReleaseTablesRequest(message: unknown): Guarded<ReleaseTablesRequest> {
  const replication = guardReplicationIdMessage(message);
  const problems = replication.ok ? [] : [...replication.problems];
  const tables = isRecord(message) ? message['tables'] : undefined;
  const refs: TableRef[] = [];
  if (!Array.isArray(tables)) {
    problems.push('tables: must be a list');
  } else {
    tables.forEach((table: unknown, index) => {
      const schema = isRecord(table) ? table['schema'] : undefined;
      const name = isRecord(table) ? table['name'] : undefined;
      if (nonEmptyString(schema) && nonEmptyString(name)) refs.push({ schema, name });
      else problems.push(`tables[${index}]: must be { schema, name } with non-empty strings`);
    });
  }
  if (!replication.ok || problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { replicationId: replication.value.replicationId, tables: refs } };
}
