import type { INestMicroservice } from '@nestjs/common';
import { Transport, type NatsOptions } from '@nestjs/microservices';
import type { NatsConnection } from 'nats';
import { natsConnectionOptions, type NatsConnectionSpec } from '@svc/messaging';

/**
 * Options for a Nest NATS microservice. `queue` puts every instance of a service in one queue group,
 * so N replicas share requests instead of each answering every one.
 */
export function natsMicroserviceOptions(servers: string | readonly string[], queue: string, spec: NatsConnectionSpec = {}): NatsOptions {
  return {
    transport: Transport.NATS,
    options: { ...natsConnectionOptions(servers, queue, spec), queue },
  };
}

/**
 * `app.listen()` of a Nest NATS microservice and then a round trip to the server: Nest subscribes without
 * waiting for the server, so a request sent right after `listen()` resolved could find no responder.
 */
export async function listenOnNats(app: INestMicroservice): Promise<void> {
  await app.listen();
  await app.unwrap<NatsConnection>().flush();
}
