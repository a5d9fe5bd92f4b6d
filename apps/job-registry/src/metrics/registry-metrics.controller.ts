import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { Subjects, type ReplyOf } from '@svc/contracts';
import { RegistryMetricsService } from './registry-metrics.service';

@Controller()
export class RegistryMetricsController {
  constructor(private readonly metrics: RegistryMetricsService) {}

  @MessagePattern(Subjects.registryMetrics)
  snapshot(): Promise<ReplyOf<typeof Subjects.registryMetrics>> {
    return this.metrics.snapshot();
  }
}
