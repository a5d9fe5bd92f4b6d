export { PIPELINE_CONSUMERS, PipelineConsumersHost, PipelineRuntimeModule, WORKER_CONFIG, WORKER_SHUTDOWN, workerProbes, type AnyPipelineWorkerOptions } from './pipeline-runtime.module';
