import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { PipelineStreams, PipelineSubjects, Subjects } from '@svc/contracts';
import { BUS_ROLES, connectNats, ensurePipelineStreams, inboxPrefixOf, type BusRole } from '@svc/messaging';
import { freePort, waitUntil } from '@svc/testing';
import { identityFileOf } from './bus-identities';
import { prepareLocalBus, type LocalBus } from './local-bus';
import { LocalNatsServer } from './local-nats-server';
import { findNatsServer } from './nats-server-binary';

const decode = (data: Uint8Array) => new TextDecoder().decode(data);
const encode = (text: string) => new TextEncoder().encode(text);

/** A request's answer, or why none came (a permissions violation comes back at once; silence would time out). */
async function requestOutcome(connection: NatsConnection, subject: string): Promise<string> {
  try {
    return `answered: ${decode((await connection.request(subject, encode('{}'), { timeout: 3000 })).data)}`;
  } catch (error) {
    return `refused: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Issue 36: `npm start` ran every service on an open NATS, so anyone on the machine could drive the registry or read
 * what it answers. Its bus is now its own nats-server, laid out and supervised as main.ts does it (the same functions),
 * with the permission model compose runs: this suite runs it with the real binary and the real identities.
 */
describe("npm start's own bus", () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-local-bus-'));
  const reports: string[] = [];
  const opened: NatsConnection[] = [];
  let port = 0;
  let bus: LocalBus;
  let server: LocalNatsServer;

  const startBus = async (): Promise<void> => {
    const found = findNatsServer(process.env);
    if ('problem' in found) throw new Error(`this test needs nats-server: ${found.problem}`);
    bus = prepareLocalBus({ dir, port });
    const launch = (command: string, args: readonly string[]) => {
      const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.on('data', (data: Buffer) => (serverSaid = (serverSaid + data.toString('utf8')).slice(-20_000)));
      return child;
    };
    server = new LocalNatsServer({ binary: found.binary, bus, launch, report: (text) => reports.push(text) });
    await server.start();
  };
  /** The server's last words (stderr), for a failure to say what the server was doing. */
  let serverSaid = '';
  const as = async (role: BusRole): Promise<NatsConnection> => {
    const connection = await connectNats(bus.url, `local-bus-${role}`, { security: { auth: { kind: 'nkey', seed: bus.seedOf(role) } }, role }).catch((error: unknown) => {
      // Seen once in a CI run (a TIMEOUT connecting to the server restarted by the test before): say who listens there.
      const listeners = spawnSync('ss', ['-ltnp', `sport = :${port}`], { encoding: 'utf8' }).stdout;
      throw new Error(`${role} could not connect to ${bus.url}: ${String(error)}\nlisteners:\n${listeners}\nnats-server said:\n${serverSaid.slice(-4000)}`);
    });
    opened.push(connection);
    return connection;
  };

  beforeAll(async () => {
    port = await freePort();
    await startBus();
  }, 60000);

  // Each test's connections go with it. Left open, a dozen of them (one with a subscription the server refuses) came
  // back at once to the server a later test restarts, and beside two other suites it answered nothing for 6 s to over
  // 20 s (a connect TIMEOUT in two CI runs; a new client served in under 1 s once they are closed).
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((connection) => connection.close()));
  });

  afterAll(async () => {
    await Promise.allSettled(opened.map((connection) => connection.close()));
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an anonymous client, and lets each role in with its own seed', async () => {
    const anonymous = await connect({ servers: bus.url, reconnect: false, timeout: 5000 }).then(
      async (connection) => {
        await connection.close();
        return 'connected';
      },
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(anonymous).toMatch(/authori[sz]ation violation/i);
    for (const role of BUS_ROLES) await expect((await as(role)).flush()).resolves.toBeUndefined();
  });

  it('holds the extractor to its part: it can neither run registry operations nor read the runtime configuration sealed for another worker', async () => {
    // A registry double on the registry's identity: it answers the gateway's operations and the workers' configurations.
    const registry = await as('job-registry');
    registry.subscribe(Subjects.registryOperation, { callback: (_error, message) => message.respond(encode('operation done')) });
    registry.subscribe(Subjects.registryRuntimeConfig, { callback: (_error, message) => message.respond(encode('configuration sealed for the asking worker')) });
    await registry.flush();
    const extractor = await as('extractor');
    const gateway = await as('api-gateway');
    const stager = await as('stager');

    expect(await requestOutcome(gateway, Subjects.registryOperation)).toBe('answered: operation done');
    expect(await requestOutcome(extractor, Subjects.registryOperation)).toMatch(/^refused: .*Permissions Violation for Publish/i);

    // Replies come to the asker's own inboxes; the extractor tries to listen in on the stager's.
    const overheard: string[] = [];
    const eavesdropping = (async () => {
      try {
        for await (const message of extractor.subscribe(`${inboxPrefixOf('stager')}.>`)) overheard.push(decode(message.data));
        return 'ended without an error';
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    })();
    await extractor.flush();
    expect(await requestOutcome(stager, Subjects.registryRuntimeConfig)).toBe('answered: configuration sealed for the asking worker');
    expect(await eavesdropping).toMatch(/Permissions Violation for Subscription/i);
    expect(overheard).toEqual([]);
  });

  it("keeps the identities (0600, in a 0700 folder) and JetStream's state from one start to the next", async () => {
    const seedsBefore = BUS_ROLES.map((role) => bus.seedOf(role));
    const registry = await as('job-registry');
    await ensurePipelineStreams(registry);
    registry.publish(PipelineSubjects.extractRequested, encode('{}'));
    await registry.flush();
    await registry.close();

    await server.stop();
    await startBus();

    expect(BUS_ROLES.map((role) => bus.seedOf(role))).toEqual(seedsBefore);
    expect(statSync(bus.keysDir).mode & 0o777).toBe(0o700);
    for (const role of BUS_ROLES) expect({ role, mode: statSync(identityFileOf(bus.keysDir, role)).mode & 0o777 }).toEqual({ role, mode: 0o600 });
    const manager = await (await as('job-registry')).jetstreamManager();
    expect((await manager.streams.info(PipelineStreams.work.name)).state.messages).toBe(1);
    await expect((await as('extractor')).flush()).resolves.toBeUndefined();
  }, 60000);

  it('starts nats-server again when it dies, and the connections of the services come back to it', async () => {
    const loader = await as('loader');
    const killed = server.pid;
    process.kill(killed ?? 0, 'SIGKILL');
    await waitUntil(async () => reports.includes('nats-server stopped unexpectedly (signal SIGKILL); restarting it in 1 s'), 20000, 'the restart notice');
    // Each probe bounded: a flush sent while the client is still reconnecting waits for the reconnection.
    const flushed = () => Promise.race([loader.flush().then(() => true), new Promise<boolean>((done) => setTimeout(() => done(false), 2000))]);
    await waitUntil(async () => server.pid !== killed && (await flushed()), 60000, 'the restarted nats-server');
    expect(loader.isClosed()).toBe(false);
  }, 100000);
});
