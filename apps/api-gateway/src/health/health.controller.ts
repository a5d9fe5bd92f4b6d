import { Controller, Get, Header, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiMetrics } from '../api/api-metrics';
import { HealthService } from './health.service';
import { renderReplicationMetrics } from './replication-metrics';

@Controller()
export class HttpHealthController {
  constructor(
    private readonly health: HealthService,
    private readonly metrics: ApiMetrics,
  ) {}

  @Get('health')
  async check(@Res() response: Response): Promise<void> {
    const report = await this.health.check();
    response.status(report.status === 'ok' ? 200 : 503).json(report);
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4')
  async metricsText(): Promise<string> {
    return this.metrics.render() + renderReplicationMetrics(await this.health.replicationMetrics());
  }
}
