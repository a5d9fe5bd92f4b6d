import { connectNats, NatsRequester } from '@svc/messaging';
import type { AccessKeyRequester } from './create-access-key';

const REQUEST_TIMEOUT_MS = 15_000;

export interface RegistryConnection {
  requester: AccessKeyRequester;
  close(): Promise<void>;
}

export async function openRegistryConnection(natsUrl: string): Promise<RegistryConnection> {
  const connection = await connectNats(natsUrl, 'svc-cli');
  return { requester: new NatsRequester(connection, REQUEST_TIMEOUT_MS), close: () => connection.close() };
}
