import { ConfigError, EnvReader, readNatsSecurity } from '@svc/config';
import { connectNats, NatsRequester, natsServerList } from '@svc/messaging';
import type { AccessKeyRequester } from './create-access-key';
import type { KeyLifecycleRequester } from './manage-access-keys';

const REQUEST_TIMEOUT_MS = 15_000;

export interface RegistryConnection {
  requester: AccessKeyRequester & KeyLifecycleRequester;
  close(): Promise<void>;
}

/** NATS credentials and TLS of the operator role (NATS_CREDS | NATS_USER+NATS_PASSWORD | NATS_NKEY_SEED, NATS_CA_FILE...) were not usable. */
export class NatsSettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`NATS settings: ${problems.join('; ')}`);
    this.name = 'NatsSettingsError';
  }
}

/** Connects as the operator role: the only one the bus lets create access keys. */
export async function openRegistryConnection(natsUrl: string, environment: Record<string, string | undefined> = process.env): Promise<RegistryConnection> {
  const env = new EnvReader(environment);
  const security = readNatsSecurity(env, natsServerList(natsUrl));
  try {
    env.done();
  } catch (error) {
    throw error instanceof ConfigError ? new NatsSettingsError(error.problems) : error;
  }
  const connection = await connectNats(natsUrl, 'svc-cli', { security, role: 'operator' });
  return { requester: new NatsRequester(connection, REQUEST_TIMEOUT_MS), close: () => connection.close() };
}
