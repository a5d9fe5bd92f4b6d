import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { NatsRequester, connectNats, type NatsConnectionSpec } from '@svc/messaging';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

@Injectable()
class NatsConnectionCloser implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection) {}

  async onApplicationShutdown(): Promise<void> {
    await this.connection.drain().catch(() => undefined);
  }
}

/** Provides one shared NatsRequester (and its connection) to the app that imports it. */
@Module({})
export class NatsRequesterModule {
  static forRoot(options: { servers: readonly string[]; name: string; requestTimeoutMs: number } & NatsConnectionSpec): DynamicModule {
    return {
      module: NatsRequesterModule,
      global: true,
      providers: [
        { provide: NATS_CONNECTION, useFactory: () => connectNats(options.servers, options.name, options) },
        {
          provide: NatsRequester,
          inject: [NATS_CONNECTION],
          useFactory: (connection: NatsConnection) => new NatsRequester(connection, options.requestTimeoutMs),
        },
        NatsConnectionCloser,
      ],
      exports: [NatsRequester, NATS_CONNECTION],
    };
  }
}
