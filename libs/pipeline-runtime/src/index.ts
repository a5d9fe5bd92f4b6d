export { BATCH_LOG_RETENTION_MS, HOUSEKEEPING_INTERVAL_MS, IntervalGate, batchLogCutoff } from './batch-log';
export { batchFolderName, changeBatchId, previousSeedPart, seedBatchId, workMessageId } from './batch-ids';
export { CsvRowScanner, splitCsvParts, type CsvPart } from './csv-parts';
export { EngineRegistry, UnsupportedEngineError } from './engine-registry';
export { classifyFailure, type FailureScope, type FailureVerdict } from './failure-classifier';
export { ReplicationGoneError, RuntimeConfigClient } from './runtime-config.client';
export { runClassified } from './classified-work';
// Engine errors the workers act on.
export { ChangesPurgedError, StaleDefinitionError } from '@svc/source-postgres';
export { waitForPreviousPart, type PartOrderOptions } from './part-order';
export { reportBatchFailure, type FailureReport } from './work-failure';
