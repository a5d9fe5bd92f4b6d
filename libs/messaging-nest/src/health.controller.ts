import { randomUUID } from 'node:crypto';
import { Controller, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { healthSubject, type HealthReply, type ServiceName } from '@svc/contracts';

/** A controller answering `svc.<service>.v1.health`; each service registers its own. */
export function createHealthController(service: ServiceName): Type<unknown> {
  const instanceId = randomUUID();
  const startedAt = Date.now();

  @Controller()
  class HealthController {
    @MessagePattern(healthSubject(service))
    health(): HealthReply {
      return { service, status: 'ok', instanceId, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) };
    }
  }
  return HealthController;
}
