import type { JetStreamManager, NatsConnection } from 'nats';
import { PipelineStreams, PipelineSubjects, isExtractRequested, type ExtractWork } from '@svc/contracts';
import { waitUntil } from '@svc/testing';
import { PipelinePublisher } from './pipeline-publisher';
import { ensurePipelineStreams } from './pipeline-streams';
import { PipelineWorker, type PipelineWorkerOptions } from './pipeline-worker';
import { deferred, extractRequest, holdsFor, startJetStreamTestServer, workStreamMessageCount, type JetStreamTestServer } from './testing/jetstream-test-kit';
import { RetryableWorkError, TerminalWorkError } from './work-errors';

const subject = PipelineSubjects.extractRequested;
type Options = PipelineWorkerOptions<typeof subject>;

interface GiveUp {
  payload: unknown;
  reason: string;
}

describe('PipelineWorker on JetStream', () => {
  let server: JetStreamTestServer;
  let connection: NatsConnection;
  let manager: JetStreamManager;
  let publisher: PipelinePublisher;
  const workers: PipelineWorker<typeof subject>[] = [];
  const operationalErrors: string[] = [];

  beforeEach(async () => {
    server = await startJetStreamTestServer();
    connection = await server.connect('test-publisher');
    await ensurePipelineStreams(connection);
    manager = await server.manager();
    publisher = new PipelinePublisher(connection);
    operationalErrors.length = 0;
  }, 30000);

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await server.stop();
  });

  async function startWorker(options: Partial<Options> & Pick<Options, 'handle'>, on: NatsConnection = connection): Promise<PipelineWorker<typeof subject>> {
    const worker = new PipelineWorker(on, {
      subject,
      durableName: 'extractor',
      concurrency: 1,
      ackWaitMs: 2000,
      maxDeliver: 5,
      guard: isExtractRequested,
      retryBackoff: { initialMs: 200, maxMs: 1000 },
      onError: (error, activity) => operationalErrors.push(`${activity}: ${String(error)}`),
      ...options,
    });
    workers.push(worker);
    await worker.start();
    return worker;
  }

  async function consumerInfo() {
    return manager.consumers.info(PipelineStreams.work.name, 'extractor');
  }

  async function queueDrained(): Promise<boolean> {
    return (await workStreamMessageCount(manager)) === 0 && (await consumerInfo()).num_ack_pending === 0;
  }

  it('hands a published payload to the handler and acknowledges it', async () => {
    const received: { payload: ExtractWork; deliveryCount: number }[] = [];
    await startWorker({ handle: async (payload, context) => void received.push({ payload, deliveryCount: context.deliveryCount }) });
    const request = extractRequest('work-1');
    await publisher.publish(subject, request, 'work-1');

    await waitUntil(async () => received.length === 1 && (await queueDrained()), 10000, 'the message to be handled and acked');
    expect(received).toEqual([{ payload: request, deliveryCount: 1 }]);
    const info = await consumerInfo();
    expect(info.config.filter_subject).toBe(subject);
    expect(info.num_redelivered).toBe(0);
  });

  it('redelivers after a retryable failure, with growing backoff, until the handler succeeds', async () => {
    const attempts: { deliveryCount: number; at: number }[] = [];
    const giveUps: GiveUp[] = [];
    await startWorker({
      retryBackoff: { initialMs: 400, maxMs: 5000 },
      // The jitter pinned to its low end: the delays are half their ceilings, 200 ms then 400 ms.
      retryJitter: () => 0,
      onGiveUp: async (payload, reason) => void giveUps.push({ payload, reason }),
      handle: async (_payload, { deliveryCount }) => {
        attempts.push({ deliveryCount, at: Date.now() });
        if (deliveryCount < 3) throw new RetryableWorkError('staging database is restarting');
      },
    });
    await publisher.publish(subject, extractRequest('work-retry'), 'work-retry');

    await waitUntil(async () => attempts.length === 3 && (await queueDrained()), 15000, 'three deliveries and an ack');
    expect(attempts.map((attempt) => attempt.deliveryCount)).toEqual([1, 2, 3]);
    const [first, second, third] = attempts.map((attempt) => attempt.at);
    expect(second - first).toBeGreaterThanOrEqual(180);
    expect(third - second).toBeGreaterThanOrEqual(380);
    expect(giveUps).toEqual([]);
  });

  it('treats an unclassified error as retryable', async () => {
    const deliveries: number[] = [];
    await startWorker({
      handle: async (_payload, { deliveryCount }) => {
        deliveries.push(deliveryCount);
        if (deliveryCount === 1) throw new Error('socket hang up');
      },
    });
    await publisher.publish(subject, extractRequest('work-unclassified'), 'work-unclassified');
    await waitUntil(async () => deliveries.length === 2 && (await queueDrained()), 10000, 'a redelivery and an ack');
    expect(deliveries).toEqual([1, 2]);
  });

  it('gives up after maxDeliver retryable failures and removes the message', async () => {
    const deliveries: number[] = [];
    const giveUps: GiveUp[] = [];
    await startWorker({
      maxDeliver: 3,
      retryBackoff: { initialMs: 100, maxMs: 100 },
      onGiveUp: async (payload, reason) => void giveUps.push({ payload, reason }),
      handle: async (_payload, { deliveryCount }) => {
        deliveries.push(deliveryCount);
        throw new RetryableWorkError(`still failing on attempt ${deliveryCount}`);
      },
    });
    const request = extractRequest('work-exhausted');
    await publisher.publish(subject, request, 'work-exhausted');

    await waitUntil(async () => giveUps.length === 1 && (await queueDrained()), 15000, 'the message to be given up');
    expect(deliveries).toEqual([1, 2, 3]);
    expect(giveUps).toEqual([{ payload: request, reason: 'failed 3 of 3 deliveries; last error: still failing on attempt 3' }]);
    await holdsFor(500, async () => expect(deliveries).toHaveLength(3));
  });

  it('gives up at once on a terminal failure', async () => {
    let calls = 0;
    const giveUps: GiveUp[] = [];
    await startWorker({
      onGiveUp: async (payload, reason) => void giveUps.push({ payload, reason }),
      handle: async () => {
        calls += 1;
        throw new TerminalWorkError('table public.orders no longer exists');
      },
    });
    const request = extractRequest('work-terminal');
    await publisher.publish(subject, request, 'work-terminal');

    await waitUntil(async () => giveUps.length === 1 && (await queueDrained()), 10000, 'the message to be given up');
    expect(calls).toBe(1);
    expect(giveUps).toEqual([{ payload: request, reason: 'terminal failure: table public.orders no longer exists' }]);
  });

  it("hands the last failure's detail (what a server said) to onGiveUp apart from the reason (issue 19)", async () => {
    const giveUps: (GiveUp & { detail: string | undefined })[] = [];
    await startWorker({
      maxDeliver: 2,
      retryBackoff: { initialMs: 100, maxMs: 100 },
      onGiveUp: async (payload, reason, detail) => void giveUps.push({ payload, reason, detail }),
      handle: async (_payload, { deliveryCount }) => {
        throw new RetryableWorkError('Source: the server is busy or did not answer in time', { detail: `deadlock detected (attempt ${deliveryCount})` });
      },
    });
    const request = extractRequest('work-detail');
    await publisher.publish(subject, request, 'work-detail');

    await waitUntil(async () => giveUps.length === 1 && (await queueDrained()), 15000, 'the message to be given up');
    expect(giveUps).toEqual([
      { payload: request, reason: 'failed 2 of 2 deliveries; last error: Source: the server is busy or did not answer in time', detail: 'deadlock detected (attempt 2)' },
    ]);
  });

  it('gives up malformed payloads without calling the handler, saying what is wrong', async () => {
    let calls = 0;
    const giveUps: GiveUp[] = [];
    await startWorker({
      onGiveUp: async (payload, reason) => void giveUps.push({ payload, reason }),
      handle: async () => void (calls += 1),
    });
    const jetStream = connection.jetstream();
    await jetStream.publish(subject, new TextEncoder().encode('{"workId": "truncated'));
    const wrongShape = { ...extractRequest('work-bad'), batchLimit: 'lots' };
    await jetStream.publish(subject, new TextEncoder().encode(JSON.stringify(wrongShape)));

    await waitUntil(async () => giveUps.length === 2 && (await queueDrained()), 10000, 'both messages to be given up');
    expect(calls).toBe(0);
    expect(giveUps[0]?.payload).toBe('{"workId": "truncated');
    expect(giveUps[0]?.reason).toMatch(/^malformed payload on svc\.pipeline\.v1\.extract\.requested: not JSON \(/);
    expect(giveUps[1]).toEqual({ payload: wrongShape, reason: 'malformed payload on svc.pipeline.v1.extract.requested: batchLimit: must be an integer >= 1' });
  });

  it('brings a message back when reporting its give-up fails, and gives it up on a later delivery', async () => {
    let reports = 0;
    await startWorker({
      retryBackoff: { initialMs: 100, maxMs: 100 },
      onGiveUp: async () => {
        reports += 1;
        if (reports === 1) throw new Error('registry unreachable');
      },
      handle: async () => {
        throw new TerminalWorkError('bad table');
      },
    });
    await publisher.publish(subject, extractRequest('work-report'), 'work-report');
    await waitUntil(async () => reports === 2 && (await queueDrained()), 10000, 'a second, successful give-up report');
    expect(operationalErrors).toEqual([expect.stringContaining('extractor: reporting a message given up: Error: registry unreachable')]);
  });

  it('de-duplicates messages published twice with the same msgId', async () => {
    await publisher.publish(subject, extractRequest('work-dup'), 'same-id');
    await publisher.publish(subject, extractRequest('work-dup'), 'same-id');
    await publisher.publish(subject, extractRequest('work-other'), 'other-id');
    expect(await workStreamMessageCount(manager)).toBe(2);

    const handled: string[] = [];
    await startWorker({ handle: async (payload) => void handled.push(payload.workId) });
    await waitUntil(async () => handled.length === 2 && (await queueDrained()), 10000, 'both distinct messages');
    expect(handled).toEqual(['work-dup', 'work-other']);
  });

  it('keeps one msgId apart on different subjects (one batch id names every stage of a batch)', async () => {
    const failure = {
      workId: 'work-1',
      replicationId: '00000000-0000-4000-8000-000000000001',
      table: { schema: 'public', name: 't' },
      stage: 'extract' as const,
      retryable: true,
      message: 'x',
      failedAt: new Date().toISOString(),
    };
    await publisher.publish(subject, extractRequest('work-1'), 'batch-7');
    await publisher.publish(PipelineSubjects.workFailed, failure, 'batch-7');
    expect(await workStreamMessageCount(manager)).toBe(2);
  });

  it('runs at most `concurrency` handlers at once', async () => {
    let running = 0;
    let mostAtOnce = 0;
    let done = 0;
    await startWorker({
      concurrency: 3,
      handle: async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise((resume) => setTimeout(resume, 100));
        running -= 1;
        done += 1;
      },
    });
    for (let index = 0; index < 12; index++) await publisher.publish(subject, extractRequest(`work-${index}`), `id-${index}`);
    await waitUntil(async () => done === 12 && (await queueDrained()), 15000, 'all twelve messages');
    expect(mostAtOnce).toBe(3);
  });

  it('shares 100 messages between two instances without handling any twice', async () => {
    const handledBy = { first: 0, second: 0 };
    const timesHandled = new Map<string, number>();
    const handler = (instance: keyof typeof handledBy) => async (payload: ExtractWork) => {
      handledBy[instance] += 1;
      timesHandled.set(payload.workId, (timesHandled.get(payload.workId) ?? 0) + 1);
      await new Promise((resume) => setTimeout(resume, 10));
    };
    await startWorker({ concurrency: 4, handle: handler('first') }, await server.connect('instance-1'));
    await startWorker({ concurrency: 4, handle: handler('second') }, await server.connect('instance-2'));

    const ids = Array.from({ length: 100 }, (_, index) => `work-${index}`);
    await Promise.all(ids.map((id) => publisher.publish(subject, extractRequest(id), id)));
    await waitUntil(async () => timesHandled.size === 100 && (await queueDrained()), 30000, 'all 100 messages handled and acked');

    expect([...timesHandled.keys()].sort()).toEqual([...ids].sort());
    expect([...timesHandled.values()].every((count) => count === 1)).toBe(true);
    expect(handledBy.first + handledBy.second).toBe(100);
    expect(handledBy.first).toBeGreaterThan(0);
    expect(handledBy.second).toBeGreaterThan(0);
    expect((await consumerInfo()).num_redelivered).toBe(0);
  });

  it('keeps a long handler alive past ackWait, and redelivers to another instance when its process dies', async () => {
    const ackWaitMs = 1500;
    const dyingConnection = await server.connect('instance-dying');
    const started = deferred();
    const neverFinishes = deferred();
    await startWorker(
      {
        ackWaitMs,
        handle: async () => {
          started.resolve();
          await neverFinishes.promise;
        },
      },
      dyingConnection,
    );
    await publisher.publish(subject, extractRequest('work-survives'), 'work-survives');
    await started.promise;

    const survivor: { workId: string; deliveryCount: number }[] = [];
    await startWorker({ ackWaitMs, handle: async (payload, { deliveryCount }) => void survivor.push({ workId: payload.workId, deliveryCount }) }, await server.connect('instance-survivor'));

    // While the first instance lives, its heartbeats keep the message its own for several ack deadlines.
    await holdsFor(3 * ackWaitMs, async () => {
      expect(survivor).toEqual([]);
      expect((await consumerInfo()).num_redelivered).toBe(0);
    });

    await dyingConnection.close();
    const diedAt = Date.now();
    await waitUntil(async () => survivor.length === 1 && (await queueDrained()), 10000, 'redelivery to the surviving instance');
    expect(survivor).toEqual([{ workId: 'work-survives', deliveryCount: 2 }]);
    expect(Date.now() - diedAt).toBeLessThan(3 * ackWaitMs);
    neverFinishes.resolve();
  });

  /**
   * The kill test's chain of change batches (issue 23): the batch a message waits for died with its worker and comes back
   * only after the ack wait, while the waiting one was delivered at once to the one slot of the other instance. Waiting
   * in the slot, it kept the predecessor out and spent its deliveries; lent, it spends none and the slot takes the
   * predecessor.
   */
  it.each([
    { lending: true, successorDeliveries: [1] },
    { lending: false, successorDeliveries: [1, 2] },
  ])('a message waiting for another outside its slot lets that one in and spends no delivery (lends its slot: $lending)', async ({ lending, successorDeliveries }) => {
    const ackWaitMs = 1500;
    const dyingConnection = await server.connect('instance-dying');
    const predecessorTaken = deferred();
    const neverFinishes = deferred();
    await startWorker({ ackWaitMs, handle: () => (predecessorTaken.resolve(), neverFinishes.promise) }, dyingConnection);
    await publisher.publish(subject, extractRequest('predecessor'), 'predecessor');
    await predecessorTaken.promise;

    const predecessorDone = deferred();
    const deliveries: Record<string, number[]> = { predecessor: [], successor: [] };
    await startWorker(
      {
        ackWaitMs,
        concurrency: 1,
        ...(!lending && { maxLentSlots: 0 }),
        handle: async (payload, { deliveryCount, lendSlot }) => {
          deliveries[payload.workId]?.push(deliveryCount);
          if (payload.workId === 'predecessor') return predecessorDone.resolve();
          const slotBack = lendSlot?.();
          // Waiting in its slot, the successor gives up after a while (SeedPartOrder's last slot) and comes back.
          let timer: NodeJS.Timeout | undefined;
          const waited = await Promise.race([predecessorDone.promise.then(() => true), new Promise<boolean>((done) => (timer = setTimeout(() => done(false), 3 * ackWaitMs)))]);
          clearTimeout(timer);
          if (!waited) throw new RetryableWorkError('the predecessor is still not applied');
          await slotBack?.();
        },
      },
      await server.connect('instance-survivor'),
    );
    await publisher.publish(subject, extractRequest('successor'), 'successor');
    await waitUntil(async () => deliveries['successor']?.length === 1, 5000, 'the successor taken by the surviving instance');

    await dyingConnection.close();
    await waitUntil(async () => (await queueDrained()), 20000, 'both messages handled');
    neverFinishes.resolve();
    expect(deliveries).toEqual({ predecessor: [2], successor: successorDeliveries });
  }, 30000);

  it('takes a lent slot back only once one is free, before any new message, and lends no more than maxLentSlots', async () => {
    const events: string[] = [];
    const waitOver = deferred();
    const busyDone = deferred();
    await startWorker({
      concurrency: 1,
      maxLentSlots: 1,
      handle: async (payload, { lendSlot }) => {
        events.push(`start ${payload.workId}`);
        if (payload.workId === 'waiting') {
          const slotBack = lendSlot?.();
          events.push(`second loan refused: ${lendSlot?.() === undefined}`);
          await waitOver.promise;
          events.push('waiting wants its slot back');
          await slotBack?.();
          events.push('waiting has its slot back');
        }
        if (payload.workId === 'busy') {
          events.push(`busy may lend: ${lendSlot?.() !== undefined}`);
          await busyDone.promise;
          events.push('busy done');
        }
      },
    });
    await publisher.publish(subject, extractRequest('waiting'), 'waiting');
    await waitUntil(async () => events.includes('second loan refused: true'), 5000, 'the waiting message lent its slot');
    await publisher.publish(subject, extractRequest('busy'), 'busy');
    await waitUntil(async () => events.includes('busy may lend: false'), 5000, 'the lent slot taking the next message');
    waitOver.resolve();
    await waitUntil(async () => events.includes('waiting wants its slot back'), 5000, 'the wait ending');
    await publisher.publish(subject, extractRequest('later'), 'later');
    await holdsFor(500, async () => expect(events).not.toContain('waiting has its slot back'));
    busyDone.resolve();
    await waitUntil(async () => await queueDrained(), 10000, 'every message handled');
    expect(events.slice(events.indexOf('busy done'))).toEqual(['busy done', 'waiting has its slot back', 'start later']);
  });

  it('lends past maxLentSlots to a message holding the slot another waits to take back (no deadlock)', async () => {
    const events: string[] = [];
    const firstWaitOver = deferred();
    const secondWaitOver = deferred();
    await startWorker({
      concurrency: 1,
      maxLentSlots: 1,
      handle: async (payload, { lendSlot }) => {
        if (payload.workId === 'first') {
          const slotBack = lendSlot?.();
          events.push(`first lent: ${slotBack !== undefined}`);
          await firstWaitOver.promise;
          events.push('first wants its slot back');
          await slotBack?.();
          events.push('first has its slot back');
          return;
        }
        // As SeedPartOrder does in a slot: ask for the loan again at every check until it is given or the wait is over.
        let slotBack = lendSlot?.();
        events.push(`second lent: ${slotBack !== undefined}`);
        let waited = false;
        void secondWaitOver.promise.then(() => (waited = true));
        while (slotBack === undefined && !waited) {
          await new Promise((done) => setTimeout(done, 50));
          slotBack = lendSlot?.();
          if (slotBack !== undefined) events.push('second lent while first waits to take a slot back');
        }
        await secondWaitOver.promise;
        await slotBack?.();
        events.push('second done');
      },
    });
    await publisher.publish(subject, extractRequest('first'), 'first');
    await waitUntil(async () => events.includes('first lent: true'), 5000, 'the first message lent its slot');
    await publisher.publish(subject, extractRequest('second'), 'second');
    await waitUntil(async () => events.includes('second lent: false'), 5000, 'the second message waiting in the slot');
    firstWaitOver.resolve();
    await waitUntil(async () => events.includes('first has its slot back'), 5000, 'the first message to get a slot back');
    secondWaitOver.resolve();
    await waitUntil(async () => await queueDrained(), 10000, 'every message handled');
    expect(events).toEqual(['first lent: true', 'second lent: false', 'first wants its slot back', 'second lent while first waits to take a slot back', 'first has its slot back', 'second done']);
  });

  it('at stop, a message waiting to take its slot back is handed back at once instead of waiting to run', async () => {
    const events: string[] = [];
    const waitOver = deferred();
    const busyDone = deferred();
    const worker = await startWorker({
      concurrency: 1,
      handle: async (payload, { lendSlot }) => {
        if (payload.workId === 'waiting') {
          const slotBack = lendSlot?.();
          await waitOver.promise;
          events.push('waiting wants its slot back');
          await slotBack?.().catch((error: unknown) => {
            events.push(`waiting: ${(error as Error).name}`);
            throw error;
          });
          events.push('waiting has its slot back');
          return;
        }
        events.push('busy started');
        await busyDone.promise;
        events.push('busy done');
      },
    });
    await publisher.publish(subject, extractRequest('waiting'), 'waiting');
    await publisher.publish(subject, extractRequest('busy'), 'busy');
    await waitUntil(async () => events.includes('busy started'), 5000, 'the lent slot taking the next message');
    waitOver.resolve();
    await waitUntil(async () => events.includes('waiting wants its slot back'), 5000, 'the wait ending');
    const stopping = worker.stop();
    try {
      await waitUntil(async () => events.includes('waiting: WorkAbortedError'), 2000, 'the wait for a slot to end at stop');
      expect(events).not.toContain('busy done');
    } finally {
      busyDone.resolve();
      await stopping;
    }
    expect(events).not.toContain('waiting has its slot back');
    // Handed back, not acknowledged: the next worker gets it.
    expect(await workStreamMessageCount(manager)).toBe(1);
  });

  it('stop() waits for the handler in flight and acknowledges its message', async () => {
    const started = deferred();
    const release = deferred();
    let finished = false;
    const worker = await startWorker({
      handle: async () => {
        started.resolve();
        await release.promise;
        finished = true;
      },
    });
    await publisher.publish(subject, extractRequest('work-drain'), 'work-drain');
    await started.promise;

    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await holdsFor(300, async () => expect(stopped).toBe(false));
    release.resolve();
    await stopping;
    expect(finished).toBe(true);
    expect(await queueDrained()).toBe(true);
  });

  it('refuses nonsensical options', () => {
    const base: Options = { subject, durableName: 'extractor', concurrency: 1, guard: isExtractRequested, handle: async () => undefined };
    expect(() => new PipelineWorker(connection, { ...base, concurrency: 0 })).toThrow('concurrency must be an integer >= 1');
    expect(() => new PipelineWorker(connection, { ...base, maxDeliver: 1.5 })).toThrow('maxDeliver must be an integer >= 1');
    expect(() => new PipelineWorker(connection, { ...base, durableName: '' })).toThrow('needs a durable name');
  });
});
