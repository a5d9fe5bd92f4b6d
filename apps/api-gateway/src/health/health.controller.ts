import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MetricsEndpoint } from '../metrics/metrics-endpoint';
import { HealthService } from './health.service';

@Controller()
export class HttpHealthController {
  constructor(
    private readonly health: HealthService,
    private readonly metrics: MetricsEndpoint,
  ) {}

  /** Whether the gateway can serve calls; it names no replication, so it needs no credentials. */
  @Get('health')
  async check(@Res() response: Response): Promise<void> {
    const report = await this.health.check();
    response.status(report.status === 'ok' ? 200 : 503).json(report);
  }

  @Get('metrics')
  async metricsText(@Req() request: Request, @Res() response: Response): Promise<void> {
    const answer = await this.metrics.answer(request.headers.authorization);
    response.status(answer.status).set(answer.headers).send(answer.body);
  }
}
