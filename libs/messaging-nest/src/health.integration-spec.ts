import 'reflect-metadata';
import { Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection } from 'nats';
import { healthSubject } from '@svc/contracts';
import { MessagingError, NatsRequester, connectNats } from '@svc/messaging';
import { startTestNats, type TestNats } from '@svc/testing';
import { createHealthController } from './health.controller';
import { listenOnNats, natsMicroserviceOptions } from './nats-transport';

@Module({ controllers: [createHealthController('extractor')] })
class ExtractorHealthModule {}

describe('NatsRequester against a Nest NATS microservice', () => {
  let nats: TestNats;
  let app: INestMicroservice;
  let connection: NatsConnection;

  beforeAll(async () => {
    nats = await startTestNats();
    app = await NestFactory.createMicroservice(ExtractorHealthModule, { ...natsMicroserviceOptions(nats.url, 'extractor'), logger: false });
    await listenOnNats(app);
    connection = await connectNats(nats.url, 'test');
  }, 30000);

  afterAll(async () => {
    await connection?.close();
    await app?.close();
    await nats?.stop();
  });

  it('gets the health reply of the service named in the subject', async () => {
    const reply = await new NatsRequester(connection, 5000).request(healthSubject('extractor'), {});
    expect(reply).toMatchObject({ service: 'extractor', status: 'ok' });
    expect(reply.instanceId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('fails fast with NoResponders when nothing serves the subject', async () => {
    const failure = await new NatsRequester(connection, 5000).request(healthSubject('loader'), {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MessagingError);
    expect((failure as MessagingError).kind).toBe('NoResponders');
  });
});
