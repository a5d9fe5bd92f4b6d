import { Global, Module, type DynamicModule } from '@nestjs/common';
import { JsonLogger } from '@svc/logging';
import { createHealthController } from '@svc/messaging-nest';
import { AccessKeysModule } from './access-keys/access-keys.module';
import { REGISTRY_CONFIG, type RegistryConfig } from './config/registry-config';
import type { ReachabilityProbe } from './replications/reachability-probe';
import { ReplicationsModule } from './replications/replications.module';
import { StoreModule } from './store/store.module';
import { PipelineModule } from './pipeline/pipeline.module';
import { RegistryMetricsModule } from './metrics/registry-metrics.module';
import { SourceWalHeld } from './metrics/source-wal-held';
import { ValidationModule } from './validation/validation.module';

/** The parsed configuration and the logger, shared by every module. */
@Global()
@Module({})
class CoreModule {
  static forRoot(config: RegistryConfig, logger: JsonLogger): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: REGISTRY_CONFIG, useValue: config },
        { provide: JsonLogger, useValue: logger },
        { provide: SourceWalHeld, useValue: new SourceWalHeld() },
      ],
      exports: [REGISTRY_CONFIG, JsonLogger, SourceWalHeld],
    };
  }
}

export interface AppAdapters {
  logger: JsonLogger;
  /** Replaces the real reachability probe (tests). */
  reachabilityProbe?: ReachabilityProbe;
}

@Module({})
export class AppModule {
  static forRoot(config: RegistryConfig, adapters: AppAdapters): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, adapters.logger),
        StoreModule,
        ReplicationsModule.forRoot(adapters.reachabilityProbe),
        AccessKeysModule,
        PipelineModule.forRoot(config),
        RegistryMetricsModule,
        ValidationModule,
      ],
      controllers: [createHealthController('job-registry')],
    };
  }
}
