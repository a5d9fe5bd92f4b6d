import { ErrorCode, Subjects, rpcError, rpcOk, type ExtractRequested, type RpcReply, type WorkAttemptReply, type WorkAttemptRequest } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { JsonLogger } from '@svc/logging';
import { MessagingError, WorkAbortedError, type CancelledWork, type NatsRequester, type PipelinePublisher } from '@svc/messaging';
import type { EngineRegistry, RuntimeConfigClient } from '@svc/pipeline-runtime';
import type { NatsConnection } from 'nats';
import { ExtractService } from './extract.service';

const request: ExtractRequested = {
  workId: 'work-1',
  replicationId: '5b0e8c1a-3f2d-4e6b-9a7c-2d1e0f3a4b5c',
  table: { schema: 'public', name: 'orders' },
  kind: 'changes',
  track: true,
  fromVersion: '100',
  batchLimit: 500,
  epoch: 4,
  requestedAt: '2026-11-29T00:00:00.000Z',
};

type Registry = (asked: number) => Promise<RpcReply<WorkAttemptReply>>;

/** The registry as a restarting one answers: nobody, `failures` times, then `epoch`. */
function registryAfter(failures: number, epoch: number, kind: MessagingError['kind'] = 'NoResponders'): Registry {
  return (asked) => (asked <= failures ? Promise.reject(new MessagingError(`no service answers on ${Subjects.registryWorkAttempt}`, kind)) : Promise.resolve(rpcOk({ epoch })));
}

/** The service with a registry that answers a new attempt as `registry` says, and a source it never gets to (the read stops at the configuration). */
function serviceWith(registry: Registry, shutdown = new AbortController()) {
  const asked: WorkAttemptRequest[] = [];
  const read: ExtractRequested[] = [];
  const requester = {
    request: (subject: string, body: WorkAttemptRequest) => {
      if (subject !== Subjects.registryWorkAttempt) throw new Error(`unexpected request to ${subject}`);
      asked.push(body);
      return registry(asked.length);
    },
  } as unknown as NatsRequester;
  const configs = {
    configOf: () => {
      throw new Error('read stops here');
    },
  } as unknown as RuntimeConfigClient;
  const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as JsonLogger;
  const service = new ExtractService(
    {} as EngineRegistry,
    configs,
    {} as PipelinePublisher,
    logger,
    {} as CancelledWork,
    requester,
    {} as NatsConnection,
    {} as WorkerConfig,
    shutdown,
  );
  // What the read would use: the request as this attempt reads it.
  const extractOnce = (service as unknown as { extractOnce: (attempt: ExtractRequested) => Promise<void> }).extractOnce.bind(service);
  (service as unknown as { extractOnce: (attempt: ExtractRequested) => Promise<void> }).extractOnce = (attempt) => {
    read.push(attempt);
    return extractOnce(attempt);
  };
  return { service, asked, read };
}

function serviceAnswering(epoch: number | null) {
  return serviceWith(() => Promise.resolve(rpcOk({ epoch })));
}

describe('ExtractService: a work request delivered again is a new attempt with its own epoch', () => {
  it('reads a first delivery with the epoch of its claim, asking the registry nothing', async () => {
    const { service, asked, read } = serviceAnswering(9);
    await expect(service.extract(request, { deliveryCount: 1 })).rejects.toThrow('read stops here');
    expect(asked).toEqual([]);
    expect(read.map((attempt) => attempt.epoch)).toEqual([4]);
  });

  // Two attempts of one work read different windows at different times: the older one's rows applied after the newer
  // one's would take away rows the newer one re-inserted (issue found by the nats-cluster kill of a node).
  it('reads a delivery again under the new epoch the registry gives it', async () => {
    const { service, asked, read } = serviceAnswering(9);
    await expect(service.extract(request, { deliveryCount: 2 })).rejects.toThrow('read stops here');
    expect(asked).toEqual([{ workId: 'work-1', replicationId: request.replicationId, table: request.table }]);
    expect(read.map((attempt) => attempt.epoch)).toEqual([9]);
  });

  it('reads nothing when the registry says the work is no longer in flight', async () => {
    const { service, read } = serviceAnswering(null);
    await service.extract(request, { deliveryCount: 3 });
    expect(read).toEqual([]);
  });
});

describe('ExtractService: a new attempt waits for a registry that does not answer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  // A registry restarting answers "no responders": failing the delivery would send the table into redelivery backoff, and
  // an outage of a few backoffs would use up its deliveries and put it in Error.
  it.each(['NoResponders', 'Timeout'] as const)('asks again in place while nobody answers (%s), then reads under the epoch it gives', async (kind) => {
    const { service, asked, read } = serviceWith(registryAfter(2, 9, kind));
    const outcome = expect(service.extract(request, { deliveryCount: 2 })).rejects.toThrow('read stops here');
    await jest.advanceTimersByTimeAsync(5000);
    await outcome;
    expect(asked).toHaveLength(3);
    expect(read.map((attempt) => attempt.epoch)).toEqual([9]);
  });

  it.each([
    ['shortest', 0, [0, 500, 1500, 2500, 3500]],
    ['longest', 1, [0, 1000, 3000, 5000, 7000]],
  ])('asks again after 0.5–1 s, then every 1–2 s (%s pauses)', async (_pauses, jitter, askedAt) => {
    jest.spyOn(Math, 'random').mockReturnValue(jitter);
    const startedAt = Date.now();
    const times: number[] = [];
    const answer = registryAfter(4, 9);
    const { service } = serviceWith((asked) => {
      times.push(Date.now() - startedAt);
      return answer(asked);
    });
    const outcome = expect(service.extract(request, { deliveryCount: 2 })).rejects.toThrow('read stops here');
    await jest.advanceTimersByTimeAsync(10000);
    await outcome;
    expect(times).toEqual(askedAt);
  });

  it('gives up after 2 minutes with the registry error (the message is then retried by redelivery)', async () => {
    const { service, asked, read } = serviceWith(registryAfter(Number.POSITIVE_INFINITY, 9));
    const startedAt = Date.now();
    let failedAt = 0;
    const outcome = expect(
      service.extract(request, { deliveryCount: 2 }).finally(() => {
        failedAt = Date.now();
      }),
    ).rejects.toThrow('no service answers');
    await jest.advanceTimersByTimeAsync(3 * 60000);
    await outcome;
    expect(failedAt - startedAt).toBe(2 * 60000);
    expect(asked.length).toBeGreaterThan(50);
    expect(read).toEqual([]);
  });

  it.each([
    ['a refusal (ok: false)', () => Promise.resolve(rpcError<WorkAttemptReply>(ErrorCode.Conflict, ['work-1 is not claimed'])), 'the registry refused a new attempt of work work-1: work-1 is not claimed'],
    ['a handler error', () => Promise.reject(new MessagingError(`handler for ${Subjects.registryWorkAttempt} failed`, 'RemoteError')), 'failed'],
    ['a malformed reply', () => Promise.reject(new MessagingError(`malformed reply on ${Subjects.registryWorkAttempt}`, 'BadReply')), 'malformed reply'],
    ['a closed connection', () => Promise.reject(Object.assign(new Error('CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' })), 'CONNECTION_CLOSED'],
  ] as const)('fails at once on %s', async (_answer, registry: Registry, error) => {
    const { service, asked, read } = serviceWith(registry);
    await expect(service.extract(request, { deliveryCount: 2 })).rejects.toThrow(error);
    expect(asked).toHaveLength(1);
    expect(read).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops waiting at shutdown: the message goes back without counting as a failure', async () => {
    const shutdown = new AbortController();
    const { service, asked, read } = serviceWith(registryAfter(Number.POSITIVE_INFINITY, 9), shutdown);
    const outcome = expect(service.extract(request, { deliveryCount: 2 })).rejects.toBeInstanceOf(WorkAbortedError);
    await jest.advanceTimersByTimeAsync(3000);
    const askedBeforeShutdown = asked.length;
    expect(askedBeforeShutdown).toBeGreaterThan(1);
    shutdown.abort();
    await outcome;
    await jest.advanceTimersByTimeAsync(60000);
    expect(asked).toHaveLength(askedBeforeShutdown);
    expect(read).toEqual([]);
  });

  it('stops waiting at shutdown for a request still in flight', async () => {
    const shutdown = new AbortController();
    const { service, asked } = serviceWith(() => new Promise<never>(() => undefined), shutdown);
    const outcome = expect(service.extract(request, { deliveryCount: 2 })).rejects.toBeInstanceOf(WorkAbortedError);
    await jest.advanceTimersByTimeAsync(0);
    expect(asked).toHaveLength(1);
    shutdown.abort();
    await outcome;
  });
});
