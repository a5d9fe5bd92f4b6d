export { CancelledWork, DEFAULT_CANCELLED_WORK_CAPACITY, publishWorkCancelled, type CancelledWorkOptions } from './cancelled-work';
export { MessagingError, NatsRequester, connectNats } from './nats-requester';
export { isNestReplyPacket, type NestReplyPacket, type NestRequestPacket } from './nest-wire';
export { ROWS_MAX_MESSAGE_BYTES, ensurePipelineStreams, pipelineStreamConfigs } from './pipeline-streams';
export { PipelinePublisher } from './pipeline-publisher';
export { PipelineWorker, type PipelineWorkerOptions, type WorkContext } from './pipeline-worker';
export { RetryableWorkError, TerminalWorkError } from './work-errors';
export { DEFAULT_RETRY_BACKOFF, retryDelayMs, type RandomSource, type RetryBackoff } from './retry-backoff';
export { DEFAULT_MAX_CHUNK_BYTES, DEFAULT_MAX_IN_FLIGHT, publishRowChunks, purgeRows, readRowChunks, rowsSubjectOf } from './row-chunks';
