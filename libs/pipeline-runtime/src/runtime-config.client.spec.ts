import { ErrorCode, rpcError, rpcOk, type ReplicationConfig } from '@svc/contracts';
import { MessagingError, type NatsRequester } from '@svc/messaging';
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

  describe('while the registry does not answer', () => {
    /** A registry that answers only after `outageMs` of the fake clock; the client's sleeps move that clock. */
    function outage(outageMs: number, kind: MessagingError['kind'] = 'NoResponders') {
      const registry = new FakeRegistry();
      let clock = 0;
      const sleeps: number[] = [];
      const answering = registry.requester.request;
      const requester: Pick<NatsRequester, 'request'> = {
        request: ((...args: Parameters<typeof answering>) => {
          if (clock < outageMs) return Promise.reject(new MessagingError('no service answers on svc.registry.v1.replication.runtime-config', kind));
          return answering(...args);
        }),
      };
      const wait = {
        maxWaitMs: 60000,
        now: () => clock,
        sleep: (ms: number) => {
          sleeps.push(ms);
          clock += ms;
          return Promise.resolve();
        },
      };
      return { client: new RuntimeConfigClient(requester, 0, wait), sleeps };
    }

    it.each(['NoResponders', 'Timeout'] as const)('waits it out in place (%s), with growing pauses', async (kind) => {
      const { client, sleeps } = outage(20000, kind);
      expect((await client.configOf('r')).replicationName).toBe('v1');
      expect(sleeps.length).toBeGreaterThan(3);
      expect(Math.max(...sleeps)).toBeLessThanOrEqual(5000);
      expect(sleeps[3]).toBeGreaterThan(sleeps[0]);
    });

    it('gives up after the bound with the registry error (the message is then retried by redelivery)', async () => {
      const { client, sleeps } = outage(Number.POSITIVE_INFINITY);
      await expect(client.configOf('r')).rejects.toThrow('no service answers');
      expect(sleeps.reduce((total, ms) => total + ms, 0)).toBe(60000);
    });

    it('does not wait on an answer that is an error', async () => {
      const failing: Pick<NatsRequester, 'request'> = { request: () => Promise.reject(new MessagingError('handler failed', 'RemoteError')) };
      const sleeps: number[] = [];
      const client = new RuntimeConfigClient(failing, 0, { sleep: (ms) => (sleeps.push(ms), Promise.resolve()) });
      await expect(client.configOf('r')).rejects.toThrow('handler failed');
      expect(sleeps).toEqual([]);
    });
  });
});
