import { Module } from '@nestjs/common';
import { RegistryMetricsController } from './registry-metrics.controller';
import { RegistryMetricsService } from './registry-metrics.service';

/** Monitoring: the registry's view of every replication, for the gateway's /metrics. */
@Module({ controllers: [RegistryMetricsController], providers: [RegistryMetricsService] })
export class RegistryMetricsModule {}
