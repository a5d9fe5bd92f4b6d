import { Subjects, rpcOk, type ExtractRequested, type WorkAttemptRequest } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { JsonLogger } from '@svc/logging';
import type { CancelledWork, NatsRequester, PipelinePublisher } from '@svc/messaging';
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

/** The service with a registry that answers `epoch` to a new attempt, and a source it never gets to (the read stops at the configuration). */
function serviceAnswering(epoch: number | null) {
  const asked: WorkAttemptRequest[] = [];
  const read: ExtractRequested[] = [];
  const requester = {
    request: (subject: string, body: WorkAttemptRequest) => {
      if (subject !== Subjects.registryWorkAttempt) throw new Error(`unexpected request to ${subject}`);
      asked.push(body);
      return Promise.resolve(rpcOk({ epoch }));
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
    new AbortController(),
  );
  // What the read would use: the request as this attempt reads it.
  const extractOnce = (service as unknown as { extractOnce: (attempt: ExtractRequested) => Promise<void> }).extractOnce.bind(service);
  (service as unknown as { extractOnce: (attempt: ExtractRequested) => Promise<void> }).extractOnce = (attempt) => {
    read.push(attempt);
    return extractOnce(attempt);
  };
  return { service, asked, read };
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
