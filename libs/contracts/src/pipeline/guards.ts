import { checkerOf, type Guarded } from '../schema/check';
import type { PipelinePayloadOf, PipelineSubject } from '../subjects';
import { ColumnDefinitionSchema, definitionKeyProblems } from './table';
import {
  BatchExtractedSchema,
  BatchLoadedSchema,
  BatchStagedSchema,
  BatchStagingAppliedSchema,
  ExtractRequestedSchema,
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

export const guardExtractRequested = checkerOf(ExtractRequestedSchema, (message) =>
  message['kind'] === 'changes' && (typeof message['fromVersion'] !== 'string' || message['fromVersion'] === '') ? ['fromVersion: must be a non-empty string'] : [],
);
export const guardBatchExtracted = checkerOf(BatchExtractedSchema, batchKeyProblems);
export const guardBatchStaged = checkerOf(BatchStagedSchema, batchKeyProblems);
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
  'svc.pipeline.v1.extract.requested': guardExtractRequested,
  'svc.pipeline.v1.batch.extracted': guardBatchExtracted,
  'svc.pipeline.v1.batch.staged': guardBatchStaged,
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

export const isExtractRequested = isPipelinePayload('svc.pipeline.v1.extract.requested');
export const isBatchExtracted = isPipelinePayload('svc.pipeline.v1.batch.extracted');
export const isBatchStaged = isPipelinePayload('svc.pipeline.v1.batch.staged');
export const isBatchLoaded = isPipelinePayload('svc.pipeline.v1.batch.loaded');
export const isBatchStagingApplied = isPipelinePayload('svc.pipeline.v1.batch.staging-applied');
export const isWorkFailed = isPipelinePayload('svc.pipeline.v1.work.failed');
export const isValidateRequested = isPipelinePayload('svc.pipeline.v1.extract.validate');
