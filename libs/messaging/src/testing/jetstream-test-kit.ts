import type { JetStreamManager, NatsConnection } from 'nats';
import { PipelineStreams, type ExtractRequested } from '@svc/contracts';
import { startTestNats, type TestNatsServer } from '@svc/testing';
import { connectNats } from '../nats-connection';

/** A private NATS server with JetStream plus the connections a test opened on it, all closed by `stop`. */
export interface JetStreamTestServer {
  url: string;
  connect(name: string): Promise<NatsConnection>;
  manager(): Promise<JetStreamManager>;
  /** Stops the server and leaves it down (store kept) until `up`: connections keep trying to reconnect. */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

export async function startJetStreamTestServer(): Promise<JetStreamTestServer> {
  const nats: TestNatsServer = await startTestNats();
  const connections: NatsConnection[] = [];
  let managerConnection: NatsConnection | undefined;
  const open = async (name: string): Promise<NatsConnection> => {
    const connection = await connectNats(nats.url, name);
    connections.push(connection);
    return connection;
  };
  return {
    url: nats.url,
    connect: open,
    manager: async () => {
      managerConnection ??= await open('test-manager');
      return managerConnection.jetstreamManager();
    },
    down: () => nats.down(),
    up: () => nats.up(),
    stop: async () => {
      await Promise.all(connections.filter((connection) => !connection.isClosed()).map((connection) => connection.close()));
      await nats.stop();
    },
  };
}

export function extractRequest(workId: string): ExtractRequested {
  return {
    workId,
    replicationId: 'replication-1',
    table: { schema: 'public', name: 'orders' },
    kind: 'changes',
    track: true,
    fromVersion: '100',
    batchLimit: 500000,
    epoch: 1,
    requestedAt: new Date().toISOString(),
  };
}

export async function workStreamMessageCount(manager: JetStreamManager): Promise<number> {
  return (await manager.streams.info(PipelineStreams.work.name)).state.messages;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Checks `probe` repeatedly for `durationMs`: for asserting that something does NOT happen within a period. */
export async function holdsFor(durationMs: number, probe: () => Promise<void>, everyMs = 100): Promise<void> {
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    await probe();
    await new Promise((done) => setTimeout(done, everyMs));
  }
  await probe();
}
