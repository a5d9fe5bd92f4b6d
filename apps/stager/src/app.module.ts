import { Module, type DynamicModule } from '@nestjs/common';
import type { WorkerConfig } from '@svc/config';
import { JsonLogger } from '@svc/logging';
import { createHealthController } from '@svc/messaging-nest';
import { PIPELINE_CONSUMERS, PipelineConsumersHost, PipelineRuntimeModule, WORKER_CONFIG, workerProbes } from '@svc/pipeline-nest';
import { stageConsumer } from './stage/stage.consumer';
import { StageService } from './stage/stage.service';

@Module({})
export class AppModule {
  static forConfig(config: WorkerConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [PipelineRuntimeModule.forRoot('stager', config, logger)],
      controllers: [createHealthController('stager')],
      providers: [
        StageService,
        { provide: PIPELINE_CONSUMERS, inject: [StageService, WORKER_CONFIG], useFactory: (service: StageService, settings: WorkerConfig) => [stageConsumer(service, settings)] },
        PipelineConsumersHost,
        workerProbes('stager', config),
      ],
    };
  }
}
