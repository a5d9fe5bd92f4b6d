import type { NatsConnection } from 'nats';
import { PipelineStreams, Subjects, type WorkCancelled } from '@svc/contracts';
import { waitUntil } from '@svc/testing';
import { CancelledWork, publishWorkCancelled, type CancelledWorkOptions } from './cancelled-work';
import { encodeJson } from './json-payload';
import { NatsRequester } from './nats-requester';
import { ensurePipelineStreams } from './pipeline-streams';
import { startJetStreamTestServer, type JetStreamTestServer } from './testing/jetstream-test-kit';

function cancellation(workId: string): WorkCancelled {
  return {
    workId,
    replicationId: 'replication-1',
    table: { schema: 'public', name: 'orders' },
    reason: 'ran past CtProcessTimeoutInMinutes',
    cancelledAt: new Date().toISOString(),
  };
}

describe('CancelledWork on NATS', () => {
  let server: JetStreamTestServer;
  let publisher: NatsConnection;
  const started: CancelledWork[] = [];

  beforeEach(async () => {
    server = await startJetStreamTestServer();
    publisher = await server.connect('test-registry');
  }, 30000);

  afterEach(async () => {
    await Promise.all(started.splice(0).map((cancelled) => cancelled.stop()));
    await server.stop();
  });

  async function listen(options: CancelledWorkOptions = {}): Promise<CancelledWork> {
    const cancelled = new CancelledWork(await server.connect('test-worker'), options);
    await cancelled.start();
    started.push(cancelled);
    return cancelled;
  }

  async function seen(cancelled: CancelledWork, workId: string): Promise<void> {
    await waitUntil(async () => cancelled.has(workId), 5000, `cancellation of ${workId}`);
  }

  it('remembers the work ids published after start, and only those', async () => {
    const cancelled = await listen();
    publishWorkCancelled(publisher, cancellation('work-1'));
    await seen(cancelled, 'work-1');
    expect(cancelled.has('work-2')).toBe(false);
  });

  it('forgets the oldest ids beyond its capacity; cancelling an id again makes it the newest', async () => {
    const cancelled = await listen({ capacity: 3 });
    for (const workId of ['work-1', 'work-2', 'work-3', 'work-1', 'work-4']) publishWorkCancelled(publisher, cancellation(workId));
    await seen(cancelled, 'work-4');
    expect(['work-1', 'work-2', 'work-3', 'work-4'].filter((workId) => cancelled.has(workId))).toEqual(['work-1', 'work-3', 'work-4']);
  });

  it('keeps 10,000 ids by default', async () => {
    const cancelled = await listen();
    for (let index = 0; index <= 10_000; index++) publishWorkCancelled(publisher, cancellation(`work-${index}`));
    await seen(cancelled, 'work-10000');
    expect(cancelled.has('work-0')).toBe(false);
    expect(cancelled.has('work-1')).toBe(true);
  });

  it('reports and ignores a malformed cancellation', async () => {
    const problems: string[] = [];
    const cancelled = await listen({ onError: (error) => problems.push(error instanceof Error ? error.message : String(error)) });
    publisher.publish(Subjects.workCancelled, new TextEncoder().encode('not json'));
    publisher.publish(Subjects.workCancelled, encodeJson({ ...cancellation('work-bad'), workId: '' }));
    publisher.publish(Subjects.workCancelled, encodeJson({ ...cancellation('work-late'), cancelledAt: 'now' }));
    publishWorkCancelled(publisher, cancellation('work-marker'));
    await seen(cancelled, 'work-marker');
    expect(cancelled.has('work-late')).toBe(false);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^a cancellation that is not JSON/);
    expect(problems[1]).toBe('a malformed cancellation: workId: must be a non-empty string');
    expect(problems[2]).toBe('a malformed cancellation: cancelledAt: must be an ISO timestamp');
  });

  it('understands a cancellation sent as a Nest event (NatsRequester.publish of the event contract)', async () => {
    const cancelled = await listen();
    new NatsRequester(publisher, 1000).publish(Subjects.workCancelled, cancellation('work-nest'));
    await seen(cancelled, 'work-nest');
  });

  it('hears nothing after stop, and keeps what it knew', async () => {
    const stopped = await listen();
    const witness = await listen();
    publishWorkCancelled(publisher, cancellation('work-before'));
    await seen(stopped, 'work-before');
    await stopped.stop();
    publishWorkCancelled(publisher, cancellation('work-after'));
    await seen(witness, 'work-after');
    expect(stopped.has('work-after')).toBe(false);
    expect(stopped.has('work-before')).toBe(true);
  });

  it('is not stored in the pipeline work stream (it is no JetStream work)', async () => {
    await ensurePipelineStreams(publisher);
    const cancelled = await listen();
    publishWorkCancelled(publisher, cancellation('work-1'));
    await seen(cancelled, 'work-1');
    const manager = await server.manager();
    expect((await manager.streams.info(PipelineStreams.work.name)).state.messages).toBe(0);
  });
});
