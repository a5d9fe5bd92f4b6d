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

/** The settings by which a connection authenticates to NATS; any one set means the user chose who they are on the bus. */
const NATS_AUTH_SETTINGS = ['NATS_CREDS', 'NATS_USER', 'NATS_PASSWORD', 'NATS_NKEY_SEED'];

/**
 * Connects as the operator role: the only one the bus lets create access keys. `operatorSeed`: the operator's seed of
 * npm start's own bus, used only when the environment names no NATS identity of its own.
 */
export async function openRegistryConnection(
  natsUrl: string,
  operatorSeed?: string,
  environment: Record<string, string | undefined> = process.env,
): Promise<RegistryConnection> {
  const ownIdentity = NATS_AUTH_SETTINGS.some((name) => (environment[name] ?? '').trim() !== '');
  const env = new EnvReader(operatorSeed === undefined || ownIdentity ? environment : { ...environment, NATS_NKEY_SEED: operatorSeed });
  const security = readNatsSecurity(env, natsServerList(natsUrl));
  try {
    env.done();
  } catch (error) {
    throw error instanceof ConfigError ? new NatsSettingsError(error.problems) : error;
  }
  const connection = await connectNats(natsUrl, 'svc-cli', { security, role: 'operator' });
  return { requester: new NatsRequester(connection, REQUEST_TIMEOUT_MS), close: () => connection.close() };
}
