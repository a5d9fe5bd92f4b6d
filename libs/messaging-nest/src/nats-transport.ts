import { Transport, type NatsOptions } from '@nestjs/microservices';

/**
 * Options for a Nest NATS microservice. `queue` puts every instance of a service in one queue group,
 * so N replicas share requests instead of each answering every one.
 */
export function natsMicroserviceOptions(url: string, queue: string): NatsOptions {
  return {
    transport: Transport.NATS,
    options: { servers: [url], queue, maxReconnectAttempts: -1, reconnectTimeWait: 500 },
  };
}
