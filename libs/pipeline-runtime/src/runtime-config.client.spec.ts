import { randomBytes } from 'node:crypto';
import { ErrorCode, rpcError, rpcOk, type ReplicationConfig, type RpcReply, type RuntimeConfigReply, type RuntimeConfigRequest } from '@svc/contracts';
import { RuntimeConfigSeal } from '@svc/crypto';
import { MessagingError, type NatsRequester } from '@svc/messaging';
import { ReplicationGoneError, RuntimeConfigClient } from './runtime-config.client';

const workerSeal = new RuntimeConfigSeal(randomBytes(32));

/** A registry whose stored configuration version the test moves; it answers as the real one does, sealed for the request. */
class FakeRegistry {
  version = 1;
  requests = 0;
  exists = true;
  forbidden = false;
  checksProofs = true;
  readonly proofs: unknown[] = [];

  constructor(private readonly seal = workerSeal) {}

  private readonly answer = async (_subject: string, payload: RuntimeConfigRequest): Promise<RpcReply<RuntimeConfigReply>> => {
    this.requests += 1;
    this.proofs.push(payload.proof);
    if (this.forbidden || (this.checksProofs && !this.seal.verify(payload.replicationId, payload.proof))) return rpcError(ErrorCode.Forbidden, ['not authorised']);
    if (!this.exists) return rpcError(ErrorCode.NotFound, ['gone']);
    const config = { replicationName: `v${String(this.version)}` } as ReplicationConfig;
    return rpcOk({ replicationId: 'r', configVersion: this.version, sealedConfig: this.seal.seal(JSON.stringify(config), payload.replicationId, payload.proof.nonce) });
  };

  readonly requester = { request: this.answer } as unknown as Pick<NatsRequester, 'request'>;
}

describe('RuntimeConfigClient', () => {
  it('reuses a configuration for a moment', async () => {
    const registry = new FakeRegistry();
    const client = new RuntimeConfigClient(registry.requester, workerSeal, 60000);
    await client.configOf('r');
    registry.version = 2;
    expect((await client.configOf('r')).replicationName).toBe('v1');
    expect(registry.requests).toBe(1);
  });

  it('fetches again for work issued under a newer version (a rotated password is never met with the old one)', async () => {
    const registry = new FakeRegistry();
    const client = new RuntimeConfigClient(registry.requester, workerSeal, 60000);
    await client.configOf('r', 1);
    registry.version = 2;
    expect((await client.configOf('r', 2)).replicationName).toBe('v2');
    expect((await client.configOf('r', 1)).replicationName).toBe('v2');
    expect(registry.requests).toBe(2);
  });

  it('fetches again once the moment has passed', async () => {
    const registry = new FakeRegistry();
    const client = new RuntimeConfigClient(registry.requester, workerSeal, 0);
    await client.configOf('r');
    registry.version = 3;
    expect((await client.configOf('r')).replicationName).toBe('v3');
  });

  it('says when the replication is gone', async () => {
    const registry = new FakeRegistry();
    registry.exists = false;
    await expect(new RuntimeConfigClient(registry.requester, workerSeal).configOf('r')).rejects.toBeInstanceOf(ReplicationGoneError);
  });

  it('proves it holds the worker key afresh each time, and opens the sealed answer', async () => {
    const registry = new FakeRegistry();
    const client = new RuntimeConfigClient(registry.requester, workerSeal, 0);
    await client.configOf('r');
    await client.configOf('r');
    expect(registry.proofs).toHaveLength(2);
    expect(new Set(registry.proofs.map((proof) => (proof as { nonce: string }).nonce)).size).toBe(2);
  });

  it('says plainly when the registry refuses its key, and never trusts an answer sealed under another key', async () => {
    const registry = new FakeRegistry();
    registry.forbidden = true;
    await expect(new RuntimeConfigClient(registry.requester, workerSeal).configOf('r')).rejects.toThrow("this worker's SVC_WORKER_KEY is not the registry's");
    // A registry impostor that accepts any proof but does not hold the key: its answer cannot be opened.
    const impostor = new FakeRegistry(new RuntimeConfigSeal(randomBytes(32)));
    impostor.checksProofs = false;
    await expect(new RuntimeConfigClient(impostor.requester, workerSeal).configOf('r')).rejects.toThrow('cannot be opened');
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
      return { client: new RuntimeConfigClient(requester, workerSeal, 0, wait), sleeps };
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
      const client = new RuntimeConfigClient(failing, workerSeal, 0, { sleep: (ms) => (sleeps.push(ms), Promise.resolve()) });
      await expect(client.configOf('r')).rejects.toThrow('handler failed');
      expect(sleeps).toEqual([]);
    });
  });
});
