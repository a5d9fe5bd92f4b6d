import 'reflect-metadata';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { natsMicroserviceOptions } from '@svc/messaging-nest';
import { JsonLogger } from '@svc/logging';
import { answerMalformedHttp } from './api/malformed-http';
import { AppModule } from './app.module';
import { allowedHostsWarning } from './edge/allowed-hosts';
import type { GatewayConfig } from './config/gateway-config';
import { reloadCertificateOnChange } from './tls/certificate-reloader';
import { plainHttpWarning } from './tls/plain-http-warning';
import { STRICT_TRANSPORT_SECURITY } from './tls/strict-transport-security';
import { loadTlsCredentials } from './tls/tls-credentials';

export interface RunningGateway {
  /** Base URL, e.g. http://127.0.0.1:8080, or https://... when TLS is configured */
  url: string;
  close(): Promise<void>;
}

/** The host part of the gateway's URL: the wildcard addresses are reached on loopback, IPv6 literals bracketed. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the HTTP gateway (and its NATS health responder) and resolves once it listens: HTTPS when
 * TLS_CERT_FILE and TLS_KEY_FILE are given (files reloaded when they change), plain HTTP otherwise.
 */
export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = new JsonLogger('api-gateway', config.logLevel);
  const tls = config.tls && (await loadTlsCredentials(config.tls));
  // The body parser is off: the signature covers the exact bytes, which the API service reads itself.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forConfig(config, logger), {
    bodyParser: false,
    logger,
    ...(tls && { httpsOptions: tls.credentials }),
  });
  app.disable('x-powered-by');
  const server = app.getHttpServer();
  const answerHeaders: string[] = [];
  if (tls) {
    const hsts = STRICT_TRANSPORT_SECURITY;
    answerHeaders.push(`${hsts.name}: ${hsts.value}`);
    // Registered before Nest adds its routes (at listen), so every answer carries it, errors and /console/ included.
    app.use((_request: unknown, response: { setHeader(name: string, value: string): void }, next: () => void) => {
      response.setHeader(hsts.name, hsts.value);
      next();
    });
    // A failed handshake (plain HTTP to this port, an untrusted certificate) concerns that connection only.
    server.on('tlsClientError', (error: NodeJS.ErrnoException, socket: TLSSocket) => {
      logger.debug('TLS handshake failed', { code: error.code, reason: error.message });
      socket.destroy();
    });
  }
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerMalformedHttp(error, socket, logger, answerHeaders));
  // Given httpsOptions, Nest made an https.Server; its type still says http.Server.
  const reloader = config.tls && reloadCertificateOnChange(server as HttpsServer, config.tls, logger);
  app.connectMicroservice(natsMicroserviceOptions(config.nats.servers, 'api-gateway', { security: config.nats.security, role: 'api-gateway' }), { inheritAppConfig: true });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(config.port, config.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (tls) {
    logger.info('api-gateway listening on HTTPS', { host: config.host, port, certificate: tls.certificate });
  } else {
    logger.info('api-gateway listening on plain HTTP', { host: config.host, port });
    const warning = plainHttpWarning(config.host);
    if (warning !== null) logger.warn(warning);
  }
  const hostsWarning = allowedHostsWarning(config.host, config.allowedHosts);
  if (hostsWarning !== null) logger.warn(hostsWarning);
  return {
    url: `${tls ? 'https' : 'http'}://${urlHost(config.host)}:${port}`,
    close: async () => {
      reloader?.stop();
      await app.close();
    },
  };
}
