import { Module, type DynamicModule } from '@nestjs/common';
import type { WorkerConfig } from '@svc/config';
import { JsonLogger } from '@svc/logging';
import { createHealthController } from '@svc/messaging-nest';
import { PIPELINE_CONSUMERS, PipelineConsumersHost, PipelineRuntimeModule, WORKER_CONFIG, workerProbes } from '@svc/pipeline-nest';
import { loadConsumer } from './load/load.consumer';
import { LoadService } from './load/load.service';

@Module({})
export class AppModule {
  static forConfig(config: WorkerConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [PipelineRuntimeModule.forRoot('loader', config, logger)],
      controllers: [createHealthController('loader')],
      providers: [
        LoadService,
        { provide: PIPELINE_CONSUMERS, inject: [LoadService, WORKER_CONFIG], useFactory: (service: LoadService, settings: WorkerConfig) => [loadConsumer(service, settings)] },
        PipelineConsumersHost,
        workerProbes('loader', config),
      ],
    };
  }
}
