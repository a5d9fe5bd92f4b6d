import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Registry } from 'prom-client';
import { GATEWAY_METRICS_REGISTRY } from '../metrics/gateway-metrics-registry';
import { HealthService } from './health.service';
import { replicationMetricsRegistry } from './replication-metrics';

@Controller()
export class HttpHealthController {
  constructor(
    private readonly health: HealthService,
    @Inject(GATEWAY_METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  @Get('health')
  async check(@Res() response: Response): Promise<void> {
    const report = await this.health.check();
    response.status(report.status === 'ok' ? 200 : 503).json(report);
  }

  /** The gateway's own series (API calls, process) and the registry's view of every replication at this moment. */
  @Get('metrics')
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  async metricsText(): Promise<string> {
    const replications = replicationMetricsRegistry(await this.health.replicationMetrics());
    return Registry.merge([this.registry, replications]).metrics();
  }
}
