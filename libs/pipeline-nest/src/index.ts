export { PIPELINE_CONSUMERS, PipelineConsumersHost, PipelineRuntimeModule, WORKER_CONFIG, type AnyPipelineWorkerOptions } from './pipeline-runtime.module';
