export { BATCH_LOG_RETENTION_MS, HOUSEKEEPING_INTERVAL_MS, IntervalGate, batchLogCutoff } from './batch-log';
export { runBatchStep, type BatchStepOutcomes, type BatchStepTarget, type SchemaNotes } from './batch-step';
export { batchFolderName, changeBatchId, previousBatchOfWork, seedBatchId, startsTable, workMessageId } from './batch-ids';
export { CsvRowScanner, splitCsvParts, type CsvPart } from './csv-parts';
export { EngineRegistry, UnsupportedEngineError, type PoolSizings } from './engine-registry';
export { ENGINE_TABLE, driverErrorMappers, type EngineTable } from './engine-table';
export { classifyFailure, type FailureScope, type FailureVerdict, type WorkSubject } from './failure-classifier';
export { WHERE_MAX_FRAMES, WHERE_MAX_FRAME_LENGTH, failureLogFields, type FailureLogFields } from './failure-log';
export { ReplicationGoneError, RuntimeConfigClient } from './runtime-config.client';
export { DEFAULT_REGISTRY_WAIT, registryUnavailable, waitForRegistry, type RegistryWait } from './registry-wait';
export { runClassified, type TerminalFailure } from './classified-work';
// Engine errors the workers act on.
export { CaptureFailedError, ChangesPurgedError, SourceIncarnationChangedError, SourceVersionsRewoundError, StaleDefinitionError, TableNotTrackedError, isEngineError } from '@svc/engines';
export { SeedPartOrder, TABLE_LOSS_GRACE_MS, tableLoss, waitForPreviousPart, type PartOrderOptions } from './part-order';
export { reportBatchFailure, reportFencedOut, type FailureReport } from './work-failure';
export { ENSURED_TABLE_TTL_MS, EnsuredTables, definitionShape } from './ensured-tables';
export { GROUP_REQUESTS_AT_ONCE, MAX_GROUP_MESSAGE_BYTES, eachAtMost, groupMessageId, groupsOf, newestConfigVersion, runWorkOrGroup, type WorkOrGroupSteps } from './work-groups';
