import type { OperationName } from './replication/operations';
import type { RegistryMetricsReply } from './replication/replication-metrics';
import type { AlertRecord } from './replication/replication-status';
import type {
  CreateAccessKeyReply,
  CreateAccessKeyRequest,
  ManageAccessKeysReply,
  ManageAccessKeysRequest,
  HealthReply,
  OperationEnvelope,
  SignatureCheckReply,
  SignatureCheckRequest,
} from './rpc/envelope';
import type { RpcReply } from './rpc/domain-error';
import type { OperationResponse } from './replication/operations';
import type {
  BatchLoaded,
  BatchStagingApplied,
  ChangedTablesReply,
  ChangedTablesRequest,
  DiscoverTablesReply,
  DiscoverTablesRequest,
  ExtractedWork,
  ExtractWork,
  ReleaseTablesReply,
  ReleaseTablesRequest,
  RuntimeConfigReply,
  RuntimeConfigRequest,
  WorkAttemptReply,
  WorkAttemptRequest,
  SeedPlanReply,
  SeedPlanRequest,
  WorkCancelled,
  WorkFailed,
  WorkProgress,
  StagedWork,
} from './pipeline/messages';
import type { ValidateRequested, ValidationReportReply, ValidationReportRequest } from './pipeline/validation-messages';

/**
 * Versioned NATS subjects. Never rename one in place: add a v2 beside it.
 */
export const Subjects = {
  /** v2: the envelope carries the signed call instead of an access key id the sender could choose. */
  registryOperation: 'svc.registry.v2.operation',
  registryCheckSignature: 'svc.registry.v1.access-key.check-signature',
  registryCreateAccessKey: 'svc.registry.v1.access-key.create',
  registryManageAccessKeys: 'svc.registry.v1.access-key.manage',
  registryRuntimeConfig: 'svc.registry.v1.replication.runtime-config',
  registryMetrics: 'svc.registry.v1.metrics',
  /** Core request/reply: an extractor's progress and result of a table's validation; the reply carries the table's watermark. */
  registryValidationReport: 'svc.registry.v1.validation.report',
  /** Core request/reply: an extractor starts another attempt of a work delivered again; the reply is its epoch. */
  registryWorkAttempt: 'svc.registry.v1.work.attempt',
  /** Core request/reply: an extractor asks for (or offers) the plan of a chunked seed; the registry publishes its chunks. */
  registrySeedPlan: 'svc.registry.v1.seed.plan',
  extractorDiscoverTables: 'svc.extractor.v1.discover-tables',
  extractorReleaseTables: 'svc.extractor.v1.release-tables',
  extractorChangedTables: 'svc.extractor.v1.changed-tables',
  alertRaised: 'svc.events.v1.alert',
  /** Core NATS, not JetStream: the work stream's subjects leave it out on purpose (see PipelineStreams). */
  workCancelled: 'svc.pipeline.v1.work.cancelled',
  /** Core NATS, best effort: workers' heartbeats of the work they handle (not captured by the work stream either). */
  workProgress: 'svc.pipeline.v1.work.progress',
} as const;

/** JetStream subjects of the data path. */
export const PipelineSubjects = {
  extractRequested: 'svc.pipeline.v1.extract.requested',
  batchExtracted: 'svc.pipeline.v1.batch.extracted',
  batchStaged: 'svc.pipeline.v1.batch.staged',
  batchLoaded: 'svc.pipeline.v1.batch.loaded',
  /** Stager → registry: staging committed a batch whose files the loader took before (BatchStaged.awaitsStaging). */
  batchStagingApplied: 'svc.pipeline.v1.batch.staging-applied',
  workFailed: 'svc.pipeline.v1.work.failed',
  /** Compare one table with its source (captured by the work stream's `extract.>`). */
  validateRequested: 'svc.pipeline.v1.extract.validate',
  /** Row chunks of one batch are published under `<rowsPrefix>.<token>` (messaging: rowsSubjectOf). */
  rowsPrefix: 'svc.pipeline.v1.rows',
} as const;

/**
 * Streams: a work queue for the pipeline's messages, and a limits stream for row chunks. The work stream
 * names `work.failed` rather than `work.>`: the core-NATS `work.cancelled` broadcast must not be captured,
 * where no consumer would ever take it out of the work queue.
 */
export const PipelineStreams = {
  work: { name: 'SVC_PIPELINE_V1', subjects: ['svc.pipeline.v1.extract.>', 'svc.pipeline.v1.batch.>', 'svc.pipeline.v1.work.failed'] },
  rows: { name: 'SVC_ROWS_V1', subjects: ['svc.pipeline.v1.rows.>'] },
} as const;

/**
 * The signatures of calls that changed state, shared by every gateway replica (a JetStream key-value bucket, entries
 * expiring by themselves): a call replayed to another replica behind a load balancer is refused as one replayed to the
 * same replica. The registry makes the bucket; a gateway only writes entries (`$KV.<bucket>.<key>`).
 */
export const ReplayRecords = { bucket: 'SVC_REPLAY_V1', stream: 'KV_SVC_REPLAY_V1', subjectPrefix: '$KV.SVC_REPLAY_V1' } as const;

/**
 * The durable consumers of the work stream: which service takes which subject under which name. The bus's
 * permissions let each service create, read and acknowledge its own consumers only.
 */
export const PipelineConsumers = {
  extractor: { durableName: 'extractor', subject: PipelineSubjects.extractRequested },
  validator: { durableName: 'extractor-validate', subject: PipelineSubjects.validateRequested },
  stager: { durableName: 'stager', subject: PipelineSubjects.batchExtracted },
  loader: { durableName: 'loader', subject: PipelineSubjects.batchStaged },
  registryLoaded: { durableName: 'job-registry-loaded', subject: PipelineSubjects.batchLoaded },
  registryStagingApplied: { durableName: 'job-registry-staging-applied', subject: PipelineSubjects.batchStagingApplied },
  registryFailed: { durableName: 'job-registry-failed', subject: PipelineSubjects.workFailed },
} as const;

/** Payload of each JetStream pipeline subject. */
export interface PipelineContracts {
  'svc.pipeline.v1.extract.requested': ExtractWork;
  'svc.pipeline.v1.batch.extracted': ExtractedWork;
  'svc.pipeline.v1.batch.staged': StagedWork;
  'svc.pipeline.v1.batch.loaded': BatchLoaded;
  'svc.pipeline.v1.batch.staging-applied': BatchStagingApplied;
  'svc.pipeline.v1.work.failed': WorkFailed;
  'svc.pipeline.v1.extract.validate': ValidateRequested;
}
export type PipelineSubject = keyof PipelineContracts;
export type PipelinePayloadOf<S extends PipelineSubject> = PipelineContracts[S];

export const SERVICE_NAMES = ['api-gateway', 'job-registry', 'extractor', 'stager', 'loader'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export function healthSubject(service: ServiceName): `svc.${ServiceName}.v1.health` {
  return `svc.${service}.v1.health`;
}

/** Request/reply subjects tied to their payload types so callers and handlers cannot disagree. */
export interface RequestReplyContracts {
  'svc.registry.v2.operation': { request: OperationEnvelope; reply: RpcReply<OperationResponse<OperationName>> };
  'svc.registry.v1.access-key.check-signature': { request: SignatureCheckRequest; reply: RpcReply<SignatureCheckReply> };
  'svc.registry.v1.access-key.create': { request: CreateAccessKeyRequest; reply: RpcReply<CreateAccessKeyReply> };
  'svc.registry.v1.access-key.manage': { request: ManageAccessKeysRequest; reply: RpcReply<ManageAccessKeysReply> };
  'svc.registry.v1.replication.runtime-config': { request: RuntimeConfigRequest; reply: RpcReply<RuntimeConfigReply> };
  'svc.registry.v1.metrics': { request: Record<string, never>; reply: RpcReply<RegistryMetricsReply> };
  'svc.registry.v1.validation.report': { request: ValidationReportRequest; reply: RpcReply<ValidationReportReply> };
  'svc.registry.v1.work.attempt': { request: WorkAttemptRequest; reply: RpcReply<WorkAttemptReply> };
  'svc.registry.v1.seed.plan': { request: SeedPlanRequest; reply: RpcReply<SeedPlanReply> };
  'svc.extractor.v1.discover-tables': { request: DiscoverTablesRequest; reply: RpcReply<DiscoverTablesReply> };
  'svc.extractor.v1.release-tables': { request: ReleaseTablesRequest; reply: RpcReply<ReleaseTablesReply> };
  'svc.extractor.v1.changed-tables': { request: ChangedTablesRequest; reply: RpcReply<ChangedTablesReply> };
  'svc.api-gateway.v1.health': { request: Record<string, never>; reply: HealthReply };
  'svc.job-registry.v1.health': { request: Record<string, never>; reply: HealthReply };
  'svc.extractor.v1.health': { request: Record<string, never>; reply: HealthReply };
  'svc.stager.v1.health': { request: Record<string, never>; reply: HealthReply };
  'svc.loader.v1.health': { request: Record<string, never>; reply: HealthReply };
}
export type RequestReplySubject = keyof RequestReplyContracts;
export type RequestOf<S extends RequestReplySubject> = RequestReplyContracts[S]['request'];
export type ReplyOf<S extends RequestReplySubject> = RequestReplyContracts[S]['reply'];

/** Published events and their payloads. */
export interface EventContracts {
  'svc.events.v1.alert': AlertRecord;
  'svc.pipeline.v1.work.cancelled': WorkCancelled;
  'svc.pipeline.v1.work.progress': WorkProgress;
}
export type EventSubject = keyof EventContracts;
export type EventOf<S extends EventSubject> = EventContracts[S];
