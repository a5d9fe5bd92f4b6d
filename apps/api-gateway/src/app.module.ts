import { Module, type DynamicModule } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { SharedReplayRecords } from '@svc/messaging';
import { createHealthController, NATS_CONNECTION, NatsRequesterModule } from '@svc/messaging-nest';
import { JsonLogger } from '@svc/logging';
import { GATEWAY_CONFIG, type GatewayConfig } from './config/gateway-config';
import { APP_FILTER } from '@nestjs/core';
import { ApiController, FallbackController } from './api/api.controller';
import { ApiExceptionFilter } from './api/api-exception.filter';
import { ApiMetrics } from './api/api-metrics';
import { ApiService } from './api/api.service';
import { RequestAuthenticator } from './api/request-authenticator';
import { SignatureCheck } from './api/signature-check';
import { compiledDecodeWorker, DECODE_WORKER_SOURCE, RequestDecoder } from './decode/request-decoder';
import { KeyRateLimiter } from './edge/key-rate-limiter';
import { ReplayGuard } from './edge/replay-guard';
import { ConsoleController } from './console/console.controller';
import { ConsoleFiles } from './console/console-files';
import { CONSOLE_FILES } from './console/console-response';
import { HttpHealthController } from './health/health.controller';
import { HealthService } from './health/health.service';
import { createGatewayMetricsRegistry, GATEWAY_METRICS_REGISTRY } from './metrics/gateway-metrics-registry';
import { MetricsEndpoint } from './metrics/metrics-endpoint';

@Module({})
export class AppModule {
  static forConfig(config: GatewayConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [NatsRequesterModule.forRoot({ servers: config.nats.servers, name: 'api-gateway', requestTimeoutMs: config.nats.requestTimeoutMs, security: config.nats.security, role: 'api-gateway' })],
      // The fallback controller must stay last: it answers every path the others do not.
      controllers: [ApiController, HttpHealthController, ConsoleController, createHealthController('api-gateway'), FallbackController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: JsonLogger, useValue: logger },
        { provide: CONSOLE_FILES, useFactory: () => consoleFiles(config, logger) },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: DECODE_WORKER_SOURCE, useFactory: compiledDecodeWorker },
        { provide: GATEWAY_METRICS_REGISTRY, useFactory: createGatewayMetricsRegistry },
        RequestDecoder,
        ApiService,
        ApiMetrics,
        RequestAuthenticator,
        KeyRateLimiter,
        ReplayGuard,
        { provide: SharedReplayRecords, inject: [NATS_CONNECTION], useFactory: (connection: NatsConnection) => new SharedReplayRecords(connection) },
        SignatureCheck,
        HealthService,
        MetricsEndpoint,
      ],
    };
  }
}

function consoleFiles(config: GatewayConfig, logger: JsonLogger): ConsoleFiles {
  const files = ConsoleFiles.load(config.consoleDir);
  if (files.missingReason !== null) logger.warn('operator console unavailable', { reason: files.missingReason });
  return files;
}
