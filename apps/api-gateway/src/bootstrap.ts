import 'reflect-metadata';
import type { Duplex } from 'node:stream';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { natsMicroserviceOptions } from '@svc/messaging-nest';
import { JsonLogger } from '@svc/logging';
import { answerMalformedHttp } from './api/malformed-http';
import { AppModule } from './app.module';
import type { GatewayConfig } from './config/gateway-config';

export interface RunningGateway {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

/** Starts the HTTP gateway (and its NATS health responder) and resolves once it listens. */
export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = new JsonLogger('api-gateway', config.logLevel);
  // The body parser is off: the signature covers the exact bytes, which the API service reads itself.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forConfig(config, logger), {
    bodyParser: false,
    logger,
  });
  app.disable('x-powered-by');
  app.getHttpServer().on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerMalformedHttp(error, socket, logger));
  app.connectMicroservice(natsMicroserviceOptions(config.nats.servers, 'api-gateway', { security: config.nats.security, role: 'api-gateway' }), { inheritAppConfig: true });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  logger.info('api-gateway listening', { port });
  return { url: `http://${host}:${port}`, close: () => app.close() };
}
