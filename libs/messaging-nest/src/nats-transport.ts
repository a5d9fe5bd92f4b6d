import type { INestMicroservice } from '@nestjs/common';
import { ServerNats, type CustomStrategy, type NatsOptions } from '@nestjs/microservices';
import type { NatsConnection } from 'nats';
import { busNames, natsConnectionOptions, type BusNames, type NatsConnectionSpec } from '@svc/messaging';

type NatsServerOptions = Required<NatsOptions>['options'];

/**
 * Nest's NATS server on this installation's subjects (SVC_INSTALLATION, see BusNames): handlers are declared with the
 * contracts' logical subjects (`@MessagePattern(Subjects.registryOperation)`) and subscribed under the installation's
 * names, while Nest still finds each handler by its logical pattern.
 */
export class InstallationServerNats extends ServerNats {
  constructor(
    options: NatsServerOptions,
    private readonly names: BusNames = busNames(),
  ) {
    super(options);
  }

  override bindEvents(client: NatsConnection): void {
    const subscribe = client.subscribe.bind(client);
    const onInstallationBus = Object.create(client, {
      subscribe: { value: (subject: string, options: Parameters<NatsConnection['subscribe']>[1]) => subscribe(this.names.subject(subject), options) },
    }) as NatsConnection;
    super.bindEvents(onInstallationBus);
  }
}

/**
 * Options for a Nest NATS microservice. `queue` puts every instance of a service in one queue group,
 * so N replicas share requests instead of each answering every one.
 */
export function natsMicroserviceOptions(servers: string | readonly string[], queue: string, spec: NatsConnectionSpec = {}): CustomStrategy {
  return { strategy: new InstallationServerNats({ ...natsConnectionOptions(servers, queue, spec), queue }) };
}

/**
 * `app.listen()` of a Nest NATS microservice and then a round trip to the server: Nest subscribes without
 * waiting for the server, so a request sent right after `listen()` resolved could find no responder.
 */
export async function listenOnNats(app: INestMicroservice): Promise<void> {
  await app.listen();
  await app.unwrap<NatsConnection>().flush();
}
