import { ErrorCode, rpcError, rpcOk } from '@svc/contracts';
import type { NatsRequester } from '@svc/messaging';
import type { GatewayConfig } from '../config/gateway-config';
import { SigningKeySource, UNKNOWN_KEY_CACHE_MS, UNKNOWN_KEY_CACHE_SIZE } from './signing-key.source';

const SCOPE = { date: '20240517', region: 'us-east-1', service: 'replication' };

/** A registry that knows the ids in `known` and counts how often it is asked. */
function fakeRegistry(known: Set<string>) {
  const asked: string[] = [];
  const requester = {
    request: async (_subject: string, payload: { accessKeyId: string }) => {
      asked.push(payload.accessKeyId);
      await Promise.resolve();
      return known.has(payload.accessKeyId)
        ? rpcOk({ signingKeyHex: 'ab', allowedOperations: ['*'] })
        : rpcError(ErrorCode.Forbidden, ['unknown access key']);
    },
  } as unknown as NatsRequester;
  return { asked, source: new SigningKeySource(requester, { signingKeyCacheMs: 30_000 } as GatewayConfig) };
}

describe('SigningKeySource', () => {
  afterEach(() => jest.useRealTimers());

  it('asks the registry about an unknown id once per few seconds, not once per request', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { asked, source } = fakeRegistry(new Set());
    for (let request = 0; request < 50; request += 1) await expect(source.grantFor('SVCNOSUCHKEY', SCOPE)).resolves.toBeNull();
    expect(asked).toHaveLength(1);
    jest.advanceTimersByTime(UNKNOWN_KEY_CACHE_MS + 1);
    await source.grantFor('SVCNOSUCHKEY', SCOPE);
    expect(asked).toHaveLength(2);
  });

  it('lets a key created after a failed attempt work once the short memory of the miss has passed', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const known = new Set<string>();
    const { source } = fakeRegistry(known);
    await expect(source.grantFor('SVCNEWKEY', SCOPE)).resolves.toBeNull();
    known.add('SVCNEWKEY');
    jest.advanceTimersByTime(UNKNOWN_KEY_CACHE_MS + 1);
    await expect(source.grantFor('SVCNEWKEY', SCOPE)).resolves.toMatchObject({ allowedOperations: ['*'] });
  });

  it('shares one registry request among concurrent lookups of one id', async () => {
    const { asked, source } = fakeRegistry(new Set(['SVCKNOWN']));
    const grants = await Promise.all(Array.from({ length: 20 }, () => source.grantFor('SVCKNOWN', SCOPE)));
    expect(grants.every((grant) => grant?.allowedOperations[0] === '*')).toBe(true);
    expect(asked).toHaveLength(1);
  });

  it('remembers a bounded number of unknown ids, forgetting the oldest', async () => {
    const { asked, source } = fakeRegistry(new Set());
    for (let id = 0; id <= UNKNOWN_KEY_CACHE_SIZE; id += 1) await source.grantFor(`SVCRANDOM${id}`, SCOPE);
    expect(asked).toHaveLength(UNKNOWN_KEY_CACHE_SIZE + 1);
    await source.grantFor(`SVCRANDOM${UNKNOWN_KEY_CACHE_SIZE}`, SCOPE);
    expect(asked).toHaveLength(UNKNOWN_KEY_CACHE_SIZE + 1);
    await source.grantFor('SVCRANDOM0', SCOPE);
    expect(asked).toHaveLength(UNKNOWN_KEY_CACHE_SIZE + 2);
  });
});
