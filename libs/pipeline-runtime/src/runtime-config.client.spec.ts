import { ErrorCode, rpcError, rpcOk, type ReplicationConfig } from '@svc/contracts';
import type { NatsRequester } from '@svc/messaging';
import { ReplicationGoneError, RuntimeConfigClient } from './runtime-config.client';

/** A registry whose stored configuration version the test moves. */
class FakeRegistry {
  version = 1;
  requests = 0;
  exists = true;

  readonly requester: Pick<NatsRequester, 'request'> = {
    request: (async () => {
      this.requests += 1;
      if (!this.exists) return rpcError(ErrorCode.NotFound, ['gone']);
      const config = { replicationName: `v${String(this.version)}` } as ReplicationConfig;
      return rpcOk({ replicationId: 'r', configVersion: this.version, config });
    }) as Pick<NatsRequester, 'request'>['request'],
  };
}

describe('RuntimeConfigClient', () => {
  it('reuses a configuration for a moment', async () => {
    const registry = new FakeRegistry();
    const client = new RuntimeConfigClient(registry.requester, 60000);
    await client.configOf('r');
    registry.version = 2;
    expect((await client.configOf('r')).replicationName).toBe('v1');
    expect(registry.requests).toBe(1);
  });

  it('fetches again for work issued under a newer version (a rotated password is never met with the old one)', async () => {
    const registry = new FakeRegistry();
    const client = new RuntimeConfigClient(registry.requester, 60000);
    await client.configOf('r', 1);
    registry.version = 2;
    expect((await client.configOf('r', 2)).replicationName).toBe('v2');
    expect((await client.configOf('r', 1)).replicationName).toBe('v2');
    expect(registry.requests).toBe(2);
  });

  it('fetches again once the moment has passed', async () => {
    const registry = new FakeRegistry();
    const client = new RuntimeConfigClient(registry.requester, 0);
    await client.configOf('r');
    registry.version = 3;
    expect((await client.configOf('r')).replicationName).toBe('v3');
  });

  it('says when the replication is gone', async () => {
    const registry = new FakeRegistry();
    registry.exists = false;
    await expect(new RuntimeConfigClient(registry.requester).configOf('r')).rejects.toBeInstanceOf(ReplicationGoneError);
  });
});
