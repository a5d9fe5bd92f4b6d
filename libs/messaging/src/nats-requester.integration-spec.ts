import { startTestNats, type TestNatsServer } from '@svc/testing';
import type { NatsConnection } from 'nats';
import { connectNats } from './nats-connection';
import { MessagingError, NatsRequester } from './nats-requester';

const SUBJECT = 'svc.registry.v1.metrics';
const GRACE_MS = 1000;

/**
 * A request whose server restarts while it waits: its reply will never come (the handler here never answers, as a
 * reply lost with the old server). Without the grace it holds its caller for the whole request timeout (30 s by
 * default: the gateway's API calls and the workers' configuration requests hung that long after a NATS restart).
 */
describe('NatsRequester across a NATS restart', () => {
  let nats: TestNatsServer;
  let caller: NatsConnection;
  let handler: NatsConnection;

  beforeAll(async () => {
    nats = await startTestNats();
    caller = await connectNats(nats.url, 'requester-caller');
    handler = await connectNats(nats.url, 'requester-silent-handler');
    handler.subscribe(SUBJECT, { callback: () => undefined });
    await handler.flush();
  });

  afterAll(async () => {
    await Promise.allSettled([caller?.close(), handler?.close()]);
    await nats?.stop();
  });

  it('gives up on a request sent before the connection dropped soon after it comes back, not at its timeout', async () => {
    const requester = new NatsRequester(caller, 30000, GRACE_MS);
    const startedAt = Date.now();
    const outcome = requester.request(SUBJECT, {}).then(
      () => 'answered',
      (error: unknown) => error,
    );
    await new Promise((done) => setTimeout(done, 200));
    await nats.restart();
    const error = await outcome;
    expect(error).toBeInstanceOf(MessagingError);
    expect((error as MessagingError).kind).toBe('Timeout');
    expect((error as MessagingError).message).toContain('NATS reconnected');
    expect(Date.now() - startedAt).toBeLessThan(10000);
  }, 40000);

  it('gives up as soon on a request sent while the connection was down', async () => {
    const requester = new NatsRequester(caller, 30000, GRACE_MS);
    await nats.down();
    await new Promise((done) => setTimeout(done, 300));
    const startedAt = Date.now();
    const outcome = requester.request(SUBJECT, {}).then(
      () => 'answered',
      (error: unknown) => error,
    );
    await nats.up();
    expect(await outcome).toBeInstanceOf(MessagingError);
    expect(Date.now() - startedAt).toBeLessThan(10000);
  }, 40000);

  it('leaves a request sent after the reconnect to its own timeout', async () => {
    const requester = new NatsRequester(caller, 1500, GRACE_MS);
    await caller.flush();
    const startedAt = Date.now();
    await expect(requester.request(SUBJECT, {})).rejects.toThrow(`no reply on ${SUBJECT} within 1500 ms`);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1400);
  });
});
