import { checkerOf, type Guarded } from '../schema/check';
import type { PipelinePayloadOf, PipelineSubject } from '../subjects';
import { ColumnDefinitionSchema, definitionKeyProblems } from './table';
import {
  BatchExtractedSchema,
  BatchGroupExtractedSchema,
  BatchGroupStagedSchema,
  BatchLoadedSchema,
  BatchStagedSchema,
  BatchStagingAppliedSchema,
  ExtractGroupRequestedSchema,
  ExtractRequestedSchema,
  type ExtractedWork,
  type ExtractWork,
  type StagedWork,
  type BatchExtracted,
  type BatchStaged,
  type ExtractRequested,
  WorkAttemptRequestSchema,
  SeedPlanRequestSchema,
  WorkCancelledSchema,
  WorkFailedSchema,
  WorkProgressSchema,
} from './messages';
import { ValidateRequestedSchema, ValidationReportRequestSchema } from './validation-messages';

/**
 * The checks of the pipeline payloads, derived from the schemas their types come from: a worker rejects a
 * malformed message up front instead of failing halfway through a batch.
 */

const batchKeyProblems = (message: Record<string, unknown>): string[] => {
  const batch = message['batch'];
  return typeof batch === 'object' && batch !== null ? definitionKeyProblems((batch as Record<string, unknown>)['definition'], 'batch.definition') : [];
};

const fromVersionProblems = (message: Record<string, unknown>): string[] =>
  message['kind'] === 'changes' && (typeof message['fromVersion'] !== 'string' || message['fromVersion'] === '') ? ['fromVersion: must be a non-empty string'] : [];

/**
 * A group's members, each checked as the message it would be alone (`group[i].` before its problems); and the group's own
 * id, which must not be a member's work id: filters of cancelled work look at a message's work id, and would drop every
 * member with the one cancelled.
 */
const membersProblems =
  (memberProblems: (member: Record<string, unknown>) => string[]) =>
  (message: Record<string, unknown>): string[] => {
    const group = message['group'];
    if (!Array.isArray(group)) return [];
    const members = group.filter((member: unknown): member is Record<string, unknown> => typeof member === 'object' && member !== null);
    const ownId = members.some((member) => member['workId'] === message['workId']) ? ["workId: must be the group's own id, not a member's work id"] : [];
    return [...ownId, ...members.flatMap((member, index) => memberProblems(member).map((problem) => `group[${String(index)}].${problem}`))];
  };

export const guardExtractRequested = checkerOf(ExtractRequestedSchema, fromVersionProblems);
export const guardBatchExtracted = checkerOf(BatchExtractedSchema, batchKeyProblems);
export const guardBatchStaged = checkerOf(BatchStagedSchema, batchKeyProblems);
export const guardExtractGroupRequested = checkerOf(ExtractGroupRequestedSchema, membersProblems(fromVersionProblems));
export const guardBatchGroupExtracted = checkerOf(BatchGroupExtractedSchema, membersProblems(batchKeyProblems));
export const guardBatchGroupStaged = checkerOf(BatchGroupStagedSchema, membersProblems(batchKeyProblems));

/** A subject that carries one table's message or a group's: the group's guard when the message has `group`. */
function oneOrGroup<T>(one: (message: unknown) => Guarded<T>, group: (message: unknown) => Guarded<T>): (message: unknown) => Guarded<T> {
  return (message) => (typeof message === 'object' && message !== null && 'group' in message ? group(message) : one(message));
}
const guardExtractWork = oneOrGroup<ExtractWork>(guardExtractRequested, guardExtractGroupRequested);
const guardExtractedWork = oneOrGroup<ExtractedWork>(guardBatchExtracted, guardBatchGroupExtracted);
const guardStagedWork = oneOrGroup<StagedWork>(guardBatchStaged, guardBatchGroupStaged);
export const guardBatchLoaded = checkerOf(BatchLoadedSchema);
export const guardBatchStagingApplied = checkerOf(BatchStagingAppliedSchema);
export const guardWorkFailed = checkerOf(WorkFailedSchema);
export const guardValidateRequested = checkerOf(ValidateRequestedSchema);
/** A worker's report of a table's validation (Subjects.registryValidationReport); not a JetStream pipeline payload. */
export const guardValidationReport = checkerOf(ValidationReportRequestSchema);
/** The core-NATS heartbeat of a worker (Subjects.workProgress); not a JetStream pipeline payload. */
export const guardWorkProgress = checkerOf(WorkProgressSchema);
/** An extractor's request for a new attempt's epoch (Subjects.registryWorkAttempt); not a JetStream pipeline payload. */
export const guardWorkAttempt = checkerOf(WorkAttemptRequestSchema);
/** An extractor's request for (or offer of) a chunked seed's plan (Subjects.registrySeedPlan); not a JetStream pipeline payload. */
export const guardSeedPlan = checkerOf(SeedPlanRequestSchema);
/** The core-NATS cancellation event (Subjects.workCancelled); not a JetStream pipeline payload. */
export const guardWorkCancelled = checkerOf(WorkCancelledSchema);

/** A column as an engine's catalog query reports it. */
export const guardColumnDefinition = checkerOf(ColumnDefinitionSchema);

/** The detailed guard of each pipeline subject's payload. */
export const PIPELINE_PAYLOAD_GUARDS: { readonly [S in PipelineSubject]: (message: unknown) => Guarded<PipelinePayloadOf<S>> } = {
  'svc.pipeline.v1.extract.requested': guardExtractWork,
  'svc.pipeline.v1.batch.extracted': guardExtractedWork,
  'svc.pipeline.v1.batch.staged': guardStagedWork,
  'svc.pipeline.v1.batch.loaded': guardBatchLoaded,
  'svc.pipeline.v1.batch.staging-applied': guardBatchStagingApplied,
  'svc.pipeline.v1.work.failed': guardWorkFailed,
  'svc.pipeline.v1.extract.validate': guardValidateRequested,
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

/** One table's work (a group's message is not one). */
export const isExtractRequested = (message: unknown): message is ExtractRequested => guardExtractRequested(message).ok;
export const isBatchExtracted = (message: unknown): message is BatchExtracted => guardBatchExtracted(message).ok;
export const isBatchStaged = (message: unknown): message is BatchStaged => guardBatchStaged(message).ok;
/** What the subject carries: one table's message or a group's. */
export const isExtractWork = isPipelinePayload('svc.pipeline.v1.extract.requested');
export const isExtractedWork = isPipelinePayload('svc.pipeline.v1.batch.extracted');
export const isStagedWork = isPipelinePayload('svc.pipeline.v1.batch.staged');
export const isBatchLoaded = isPipelinePayload('svc.pipeline.v1.batch.loaded');
export const isBatchStagingApplied = isPipelinePayload('svc.pipeline.v1.batch.staging-applied');
export const isWorkFailed = isPipelinePayload('svc.pipeline.v1.work.failed');
export const isValidateRequested = isPipelinePayload('svc.pipeline.v1.extract.validate');
