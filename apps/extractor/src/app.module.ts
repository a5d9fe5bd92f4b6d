import { Module, type DynamicModule } from '@nestjs/common';
import type { WorkerConfig } from '@svc/config';
import { JsonLogger } from '@svc/logging';
import { createHealthController } from '@svc/messaging-nest';
import { PIPELINE_CONSUMERS, PipelineConsumersHost, PipelineRuntimeModule, WORKER_CONFIG, workerProbes } from '@svc/pipeline-nest';
import { DiscoverController } from './extract/discover.controller';
import { DiscoverService } from './extract/discover.service';
import { extractConsumer } from './extract/extract.consumer';
import { ExtractService } from './extract/extract.service';
import { ChangedTablesController } from './probe/changed-tables.controller';
import { ChangedTablesService } from './probe/changed-tables.service';
import { ReleaseController } from './release/release.controller';
import { ReleaseService } from './release/release.service';
import { validateConsumer } from './validate/validate.consumer';
import { ValidateService } from './validate/validate.service';

@Module({})
export class AppModule {
  static forConfig(config: WorkerConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [PipelineRuntimeModule.forRoot('extractor', config, logger)],
      controllers: [createHealthController('extractor'), DiscoverController, ReleaseController, ChangedTablesController],
      providers: [
        ExtractService,
        DiscoverService,
        ReleaseService,
        ChangedTablesService,
        ValidateService,
        {
          provide: PIPELINE_CONSUMERS,
          inject: [ExtractService, ValidateService, WORKER_CONFIG],
          useFactory: (extract: ExtractService, validate: ValidateService, settings: WorkerConfig) => [extractConsumer(extract, settings), validateConsumer(validate, settings)],
        },
        PipelineConsumersHost,
        workerProbes('extractor', config),
      ],
    };
  }
}
