import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module';
import { AccessKeysModule } from '../access-keys/access-keys.module';
import { ExternalIdIssuer } from '@svc/crypto';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { OperationDispatcher } from './operation-dispatcher';
import { OperationsController } from './operations.controller';
import { targetPolicyOf } from '../config/target-policy';
import { ConnectorsReachabilityProbe, REACHABILITY_PROBE, type ReachabilityProbe } from './reachability-probe';
import { ReplicationMetricsService } from './replication-metrics.service';
import { ReplicationsService } from './replications.service';
import { ServiceControlService } from './service-control.service';

@Module({})
export class ReplicationsModule {
  /** `probe` replaces the real reachability check (tests). */
  static forRoot(probe?: ReachabilityProbe): DynamicModule {
    const probeProvider: Provider = probe
      ? { provide: REACHABILITY_PROBE, useValue: probe }
      : {
          provide: REACHABILITY_PROBE,
          inject: [REGISTRY_CONFIG],
          useFactory: (config: RegistryConfig) => new ConnectorsReachabilityProbe({ timeoutMs: config.reachabilityTimeoutMs, s3: config.s3, policy: targetPolicyOf(config) }),
        };
    const externalIds: Provider = { provide: ExternalIdIssuer, inject: [REGISTRY_CONFIG], useFactory: (config: RegistryConfig) => new ExternalIdIssuer(config.masterKey) };
    return {
      module: ReplicationsModule,
      imports: [AccessKeysModule, AlertsModule],
      controllers: [OperationsController],
      providers: [probeProvider, externalIds, ReplicationsService, ReplicationMetricsService, ServiceControlService, OperationDispatcher],
    };
  }
}
