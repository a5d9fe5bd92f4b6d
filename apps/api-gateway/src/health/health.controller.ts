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

  /** Liveness: the gateway's event loop answers (whatever NATS and the registry do). */
  @Get('live')
  live(@Res() response: Response): void {
    response.status(200).json({ service: 'api-gateway', status: 'alive' });
  }

  /** Readiness: NATS and the registry answer and the gateway is not stopping; 503 naming the check that failed. */
  @Get('ready')
  async ready(@Res() response: Response): Promise<void> {
    const report = await this.health.ready();
    response.status(report.status === 'ready' ? 200 : 503).set('cache-control', 'no-store').json(report);
  }

  @Get('metrics')
  async metricsText(@Req() request: Request, @Res() response: Response): Promise<void> {
    const answer = await this.metrics.answer(request.headers.authorization);
    response.status(answer.status).set(answer.headers).send(answer.body);
  }
}
