import { Module, type DynamicModule } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { RuntimeConfigSeal } from '@svc/crypto';
import { JsonLogger } from '@svc/logging';
import { NO_OUTAGE_WAIT, PipelinePublisher, busNames } from '@svc/messaging';
import { NATS_CONNECTION, NatsRequesterModule, natsReachable, probeHostProvider } from '@svc/messaging-nest';
import type { Pool } from 'pg';
import { PipelineStreams } from '@svc/contracts';
import { REGISTRY_POOL } from '../store/store.module';
import type { RegistryConfig } from '../config/registry-config';
import { AlertsService } from './alerts.service';
import { PipelineEventsConsumers } from './pipeline-events.consumers';
import { MetricsHistoryService } from './metrics-history.service';
import { PipelineEventsService } from './pipeline-events.service';
import { PipelineScheduler } from './pipeline-scheduler.service';
import { SchedulerWake } from './scheduler-wake';
import { SeedPlansService } from './seed-plans.service';
import { PipelineLifecycle } from './replication-lifecycle.service';
import { REPLICATION_LIFECYCLE } from '../replications/replication-lifecycle';
import { RuntimeConfigController } from './runtime-config.controller';
import { RuntimeConfigService } from './runtime-config.service';
import { WorkProgressController } from './work-progress.controller';
import { BEFORE_WORK_PUBLISH, beforeWorkPublishFromConfig } from './work-publication';

/** The registry's half of the data path: scheduling, completions, alerts, runtime configuration. */
@Module({})
export class PipelineModule {
  static forRoot(config: RegistryConfig): DynamicModule {
    return {
      module: PipelineModule,
      // ReplicationsModule reaches the running job through REPLICATION_LIFECYCLE only.
      global: true,
      imports: [NatsRequesterModule.forRoot({ servers: config.nats.servers, name: 'job-registry', requestTimeoutMs: config.nats.requestTimeoutMs, security: config.nats.security, role: 'job-registry' })],
      controllers: [RuntimeConfigController, WorkProgressController],
      providers: [
        // No waiting out a NATS outage: the scheduler releases the claim and its next pass tries again, while a
        // wait in place would hold up every other replication's work.
        { provide: PipelinePublisher, inject: [NATS_CONNECTION], useFactory: (connection: NatsConnection) => new PipelinePublisher(connection, NO_OUTAGE_WAIT) },
        {
          provide: BEFORE_WORK_PUBLISH,
          inject: [JsonLogger],
          useFactory: (logger: JsonLogger) => beforeWorkPublishFromConfig(config.pipeline.testHoldClaimBeforePublishMs, logger),
        },
        { provide: RuntimeConfigSeal, useFactory: () => new RuntimeConfigSeal(config.workerKey) },
        RuntimeConfigService,
        AlertsService,
        MetricsHistoryService,
        SchedulerWake,
        PipelineEventsService,
        SeedPlansService,
        PipelineEventsConsumers,
        PipelineScheduler,
        PipelineLifecycle,
        { provide: REPLICATION_LIFECYCLE, useExisting: PipelineLifecycle },
        // The registry's probes (PROBE_PORT): NATS answers, the control database answers, the pipeline streams exist.
        probeHostProvider('job-registry', config.probes, [NATS_CONNECTION, REGISTRY_POOL], (connection: NatsConnection, pool: Pool) => [
          natsReachable(connection),
          { name: 'controlDatabase', check: async () => void (await pool.query('SELECT 1')) },
          {
            name: 'streams',
            check: async () => {
              const manager = await connection.jetstreamManager();
              await Promise.all(Object.values(PipelineStreams).map((stream) => manager.streams.info(busNames().stream(stream.name))));
            },
          },
        ]),
      ],
      exports: [PipelineScheduler, REPLICATION_LIFECYCLE, PipelinePublisher, AlertsService, PipelineLifecycle],
    };
  }
}
