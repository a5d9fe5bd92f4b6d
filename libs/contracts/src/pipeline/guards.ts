import type { Guarded } from '../guards';
import { PipelineSubjects, type PipelinePayloadOf, type PipelineSubject } from '../subjects';
import type { BatchExtracted, BatchLoaded, BatchStaged, ExtractRequested, WorkCancelled, WorkFailed, WorkProgress } from './messages';

/**
 * Structural checks of the five JetStream pipeline payloads: every field's presence and type, so that a
 * worker rejects a malformed message up front instead of failing halfway through a batch. Unknown extra
 * fields are allowed (a v1 payload may grow additively).
 */

type Problems = string[];
type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireRecord(value: unknown, path: string, problems: Problems): Fields | null {
  if (isRecord(value)) return value;
  problems.push(`${path}: must be an object`);
  return null;
}

function requireText(fields: Fields, name: string, path: string, problems: Problems): void {
  const value = fields[name];
  if (typeof value !== 'string' || value.length === 0) problems.push(`${path}${name}: must be a non-empty string`);
}

function requireString(fields: Fields, name: string, path: string, problems: Problems): void {
  if (typeof fields[name] !== 'string') problems.push(`${path}${name}: must be a string`);
}

function requireBoolean(fields: Fields, name: string, path: string, problems: Problems): void {
  if (typeof fields[name] !== 'boolean') problems.push(`${path}${name}: must be true or false`);
}

function requireCount(fields: Fields, name: string, path: string, problems: Problems): void {
  const value = fields[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    problems.push(`${path}${name}: must be an integer >= 0`);
  }
}

function requireTimestamp(fields: Fields, name: string, path: string, problems: Problems): void {
  const value = fields[name];
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) problems.push(`${path}${name}: must be an ISO timestamp`);
}

function requireOneOf(fields: Fields, name: string, allowed: readonly string[], path: string, problems: Problems): void {
  const value = fields[name];
  if (typeof value !== 'string' || !allowed.includes(value)) {
    problems.push(`${path}${name}: must be one of ${allowed.map((item) => `'${item}'`).join(', ')}`);
  }
}

function requireTextList(fields: Fields, name: string, path: string, problems: Problems): void {
  const value = fields[name];
  if (!Array.isArray(value)) {
    problems.push(`${path}${name}: must be a list`);
    return;
  }
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item.length === 0) problems.push(`${path}${name}[${index}]: must be a non-empty string`);
  });
}

/** Optional fields may be absent; when present they must have their type (null is not absent). */
function optional(fields: Fields, name: string, check: () => void): void {
  if (fields[name] !== undefined) check();
}

function checkTableRef(value: unknown, path: string, problems: Problems): void {
  const fields = requireRecord(value, path, problems);
  if (!fields) return;
  requireText(fields, 'schema', `${path}.`, problems);
  requireText(fields, 'name', `${path}.`, problems);
}

function checkColumn(value: unknown, path: string, problems: Problems): string | null {
  const fields = requireRecord(value, path, problems);
  if (!fields) return null;
  requireText(fields, 'name', `${path}.`, problems);
  requireText(fields, 'sourceType', `${path}.`, problems);
  requireText(fields, 'portableType', `${path}.`, problems);
  requireBoolean(fields, 'nullable', `${path}.`, problems);
  optional(fields, 'hasDefault', () => requireBoolean(fields, 'hasDefault', `${path}.`, problems));
  return typeof fields['name'] === 'string' ? fields['name'] : null;
}

function checkTableDefinition(value: unknown, path: string, problems: Problems): void {
  const fields = requireRecord(value, path, problems);
  if (!fields) return;
  checkTableRef(fields['table'], `${path}.table`, problems);
  const columns = fields['columns'];
  const columnNames = new Set<string>();
  if (!Array.isArray(columns) || columns.length === 0) {
    problems.push(`${path}.columns: must be a non-empty list`);
  } else {
    columns.forEach((column, index) => {
      const name = checkColumn(column, `${path}.columns[${index}]`, problems);
      if (name !== null) columnNames.add(name);
    });
  }
  const primaryKey = fields['primaryKey'];
  if (!Array.isArray(primaryKey)) {
    problems.push(`${path}.primaryKey: must be a list`);
  } else {
    primaryKey.forEach((key, index) => {
      if (typeof key !== 'string' || key.length === 0) {
        problems.push(`${path}.primaryKey[${index}]: must be a non-empty string`);
      } else if (Array.isArray(columns) && !columnNames.has(key)) {
        problems.push(`${path}.primaryKey[${index}]: '${key}' is not one of the columns`);
      }
    });
  }
  if (typeof fields['estimatedRows'] !== 'number' || !Number.isFinite(fields['estimatedRows'])) {
    problems.push(`${path}.estimatedRows: must be a number`);
  }
}

function checkBatchBody(value: unknown, path: string, problems: Problems): void {
  const fields = requireRecord(value, path, problems);
  if (!fields) return;
  const prefix = `${path}.`;
  switch (fields['kind']) {
    case 'seed':
      requireText(fields, 'seedId', prefix, problems);
      requireCount(fields, 'part', prefix, problems);
      requireBoolean(fields, 'final', prefix, problems);
      requireText(fields, 'startVersion', prefix, problems);
      return;
    case 'changes':
      requireText(fields, 'fromVersion', prefix, problems);
      requireText(fields, 'toVersion', prefix, problems);
      return;
    default:
      problems.push(`${prefix}kind: must be 'seed' or 'changes'`);
  }
}

function checkBatchDescriptor(value: unknown, path: string, problems: Problems): void {
  const fields = requireRecord(value, path, problems);
  if (!fields) return;
  requireText(fields, 'batchId', `${path}.`, problems);
  requireText(fields, 'replicationId', `${path}.`, problems);
  requireCount(fields, 'epoch', `${path}.`, problems);
  optional(fields, 'configVersion', () => requireCount(fields, 'configVersion', `${path}.`, problems));
  checkTableDefinition(fields['definition'], `${path}.definition`, problems);
  checkBatchBody(fields['body'], `${path}.body`, problems);
}

function checkStagedFiles(value: unknown, path: string, problems: Problems): void {
  const fields = requireRecord(value, path, problems);
  if (!fields) return;
  requireText(fields, 'bucket', `${path}.`, problems);
  requireText(fields, 'manifestKey', `${path}.`, problems);
  requireTextList(fields, 'partKeys', `${path}.`, problems);
}

function guarded<T>(message: unknown, check: (fields: Fields, problems: Problems) => void): Guarded<T> {
  if (!isRecord(message)) return { ok: false, problems: ['message: must be an object'] };
  const problems: Problems = [];
  check(message, problems);
  return problems.length ? { ok: false, problems } : { ok: true, value: message as unknown as T };
}

const WORK_KINDS = ['seed', 'changes'] as const;
const WORK_STAGES = ['extract', 'stage', 'load'] as const;
const FAILURE_SCOPES = ['table', 'replication'] as const;

export function guardExtractRequested(message: unknown): Guarded<ExtractRequested> {
  return guarded(message, (fields, problems) => {
    requireText(fields, 'workId', '', problems);
    requireText(fields, 'replicationId', '', problems);
    checkTableRef(fields['table'], 'table', problems);
    requireOneOf(fields, 'kind', WORK_KINDS, '', problems);
    requireBoolean(fields, 'track', '', problems);
    if (fields['kind'] === 'changes') requireText(fields, 'fromVersion', '', problems);
    else optional(fields, 'fromVersion', () => requireText(fields, 'fromVersion', '', problems));
    const batchLimit = fields['batchLimit'];
    if (typeof batchLimit !== 'number' || !Number.isSafeInteger(batchLimit) || batchLimit < 1) {
      problems.push('batchLimit: must be an integer >= 1');
    }
    requireCount(fields, 'epoch', '', problems);
    optional(fields, 'configVersion', () => requireCount(fields, 'configVersion', '', problems));
    requireTimestamp(fields, 'requestedAt', '', problems);
  });
}

export function guardBatchExtracted(message: unknown): Guarded<BatchExtracted> {
  return guarded(message, (fields, problems) => {
    requireText(fields, 'workId', '', problems);
    checkBatchDescriptor(fields['batch'], 'batch', problems);
    const rowsSubject = fields['rowsSubject'];
    if (typeof rowsSubject !== 'string' || !rowsSubject.startsWith(`${PipelineSubjects.rowsPrefix}.`)) {
      problems.push(`rowsSubject: must be a subject under ${PipelineSubjects.rowsPrefix}`);
    }
    requireCount(fields, 'chunkCount', '', problems);
    requireCount(fields, 'rowCount', '', problems);
    requireTimestamp(fields, 'extractedAt', '', problems);
  });
}

export function guardBatchStaged(message: unknown): Guarded<BatchStaged> {
  return guarded(message, (fields, problems) => {
    requireText(fields, 'workId', '', problems);
    checkBatchDescriptor(fields['batch'], 'batch', problems);
    checkStagedFiles(fields['files'], 'files', problems);
    requireCount(fields, 'rowCount', '', problems);
    requireTextList(fields, 'addedColumns', '', problems);
    requireTimestamp(fields, 'extractedAt', '', problems);
  });
}

export function guardBatchLoaded(message: unknown): Guarded<BatchLoaded> {
  return guarded(message, (fields, problems) => {
    requireText(fields, 'workId', '', problems);
    requireText(fields, 'batchId', '', problems);
    requireText(fields, 'replicationId', '', problems);
    checkTableRef(fields['table'], 'table', problems);
    requireOneOf(fields, 'kind', WORK_KINDS, '', problems);
    optional(fields, 'part', () => requireCount(fields, 'part', '', problems));
    optional(fields, 'final', () => requireBoolean(fields, 'final', '', problems));
    requireText(fields, 'version', '', problems);
    requireCount(fields, 'rowCount', '', problems);
    requireTextList(fields, 'addedColumns', '', problems);
    optional(fields, 'filledColumns', () => requireTextList(fields, 'filledColumns', '', problems));
    requireTimestamp(fields, 'extractedAt', '', problems);
    requireTimestamp(fields, 'loadedAt', '', problems);
  });
}

export function guardWorkFailed(message: unknown): Guarded<WorkFailed> {
  return guarded(message, (fields, problems) => {
    requireText(fields, 'workId', '', problems);
    requireText(fields, 'replicationId', '', problems);
    checkTableRef(fields['table'], 'table', problems);
    requireOneOf(fields, 'stage', WORK_STAGES, '', problems);
    requireBoolean(fields, 'retryable', '', problems);
    requireString(fields, 'message', '', problems);
    optional(fields, 'reseed', () => requireBoolean(fields, 'reseed', '', problems));
    optional(fields, 'scope', () => requireOneOf(fields, 'scope', FAILURE_SCOPES, '', problems));
    optional(fields, 'configVersion', () => requireCount(fields, 'configVersion', '', problems));
    requireTimestamp(fields, 'failedAt', '', problems);
  });
}

/** The core-NATS heartbeat of a worker (Subjects.workProgress); not a JetStream pipeline payload. */
export function guardWorkProgress(message: unknown): Guarded<WorkProgress> {
  return guarded(message, (fields, problems) => {
    requireText(fields, 'workId', '', problems);
    requireText(fields, 'replicationId', '', problems);
    checkTableRef(fields['table'], 'table', problems);
    requireOneOf(fields, 'stage', WORK_STAGES, '', problems);
    requireTimestamp(fields, 'at', '', problems);
  });
}

/** The core-NATS cancellation event (Subjects.workCancelled); not a JetStream pipeline payload. */
export function guardWorkCancelled(message: unknown): Guarded<WorkCancelled> {
  return guarded(message, (fields, problems) => {
    requireText(fields, 'workId', '', problems);
    requireText(fields, 'replicationId', '', problems);
    checkTableRef(fields['table'], 'table', problems);
    requireString(fields, 'reason', '', problems);
    requireTimestamp(fields, 'cancelledAt', '', problems);
  });
}

/** The detailed guard of each pipeline subject's payload. */
export const PIPELINE_PAYLOAD_GUARDS: { readonly [S in PipelineSubject]: (message: unknown) => Guarded<PipelinePayloadOf<S>> } = {
  'svc.pipeline.v1.extract.requested': guardExtractRequested,
  'svc.pipeline.v1.batch.extracted': guardBatchExtracted,
  'svc.pipeline.v1.batch.staged': guardBatchStaged,
  'svc.pipeline.v1.batch.loaded': guardBatchLoaded,
  'svc.pipeline.v1.work.failed': guardWorkFailed,
};

/** What is wrong with a payload for `subject`; empty when it passes. */
export function pipelinePayloadProblems(subject: PipelineSubject, message: unknown): string[] {
  const result = PIPELINE_PAYLOAD_GUARDS[subject](message);
  return result.ok ? [] : result.problems;
}

/** A type predicate for `subject`'s payload, the shape PipelineWorker's `guard` option takes. */
export function isPipelinePayload<S extends PipelineSubject>(subject: S): (message: unknown) => message is PipelinePayloadOf<S> {
  const guard = PIPELINE_PAYLOAD_GUARDS[subject] as (message: unknown) => Guarded<PipelinePayloadOf<S>>;
  return (message: unknown): message is PipelinePayloadOf<S> => guard(message).ok;
}

export function isExtractRequested(message: unknown): message is ExtractRequested {
  return guardExtractRequested(message).ok;
}

export function isBatchExtracted(message: unknown): message is BatchExtracted {
  return guardBatchExtracted(message).ok;
}

export function isBatchStaged(message: unknown): message is BatchStaged {
  return guardBatchStaged(message).ok;
}

export function isBatchLoaded(message: unknown): message is BatchLoaded {
  return guardBatchLoaded(message).ok;
}

export function isWorkFailed(message: unknown): message is WorkFailed {
  return guardWorkFailed(message).ok;
}

