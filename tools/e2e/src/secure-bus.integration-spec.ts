import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Events, JSONCodec, connect, nkeyAuthenticator, type ConnectionOptions, type NatsConnection } from 'nats';
import { PipelineStreams, PipelineSubjects, Subjects } from '@svc/contracts';
import { connectNats, newUserNkey, type BusRole } from '@svc/messaging';
import { ADMIN_KEY, TestStack, startSecureTestNats, type SecureBus } from '@svc/system-testing';
import { signedCallFor, type TestNatsServer } from '@svc/testing';
import { POSTGRES_TO_POSTGRES, type SourceSession, type WarehouseSession } from './engine-pairs';
import { LIVE_TABLES, ORDERS, orderRow } from './live-workload';
import { ReplicationPair } from './replication-pair';
import { insert, transaction } from './suite/changes';

const codec = JSONCodec<unknown>();
/** How long a refused request may take to come back (a permission error arrives at once; a silent drop times out). */
const REFUSAL_TIMEOUT_MS = 1500;

/** A request as Nest's NATS transport frames it: the envelope the attack of issue 18 sent. */
const envelope = (subject: string, data: unknown): Uint8Array => codec.encode({ pattern: subject, data, id: randomUUID() });

type Outcome = { kind: 'answered'; text: string } | { kind: 'refused'; reason: string };

/** Sends one request and says whether any answer came back; a permissions violation or no reply both count as refused. */
async function requestOutcome(connection: NatsConnection, subject: string, data: unknown): Promise<Outcome> {
  try {
    const reply = await connection.request(subject, envelope(subject, data), { timeout: REFUSAL_TIMEOUT_MS });
    return { kind: 'answered', text: new TextDecoder().decode(reply.data) };
  } catch (error) {
    return { kind: 'refused', reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The server's asynchronous errors on a connection (a publish or subscribe it refused), as text. */
function serverErrors(connection: NatsConnection): string[] {
  const errors: string[] = [];
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type !== Events.Error) continue;
      const context = status.permissionContext;
      const code = typeof status.data === 'string' ? status.data : JSON.stringify(status.data);
      errors.push(context ? `${code} ${context.operation} ${context.subject}` : code);
    }
  })();
  return errors;
}

async function connectOutcome(options: ConnectionOptions): Promise<Outcome> {
  try {
    const connection = await connect({ ...options, reconnect: false, timeout: 5000 });
    await connection.flush();
    await connection.close();
    return { kind: 'answered', text: 'connected' };
  } catch (error) {
    return { kind: 'refused', reason: `${(error as { code?: string }).code ?? ''} ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Issue 18: the bus behind the signed API. The services run on a nats-server whose configuration the production
 * code makes (natsServerConfig: an nkey user per role with exactly its permissions, TLS from a private CA), each
 * with its own credentials. An attacker on the network, a wrong secret, and each role used beyond its part are
 * refused; the pipeline still seeds, tracks and survives a NATS restart with all of it on.
 */
describe('the bus: every connection authenticated and encrypted, every subject authorised', () => {
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    startNats: async () => (server = await startSecureTestNats()),
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SCHEDULER_MINUTE_SECONDS: '2', WORKER_CONCURRENCY: '2' },
  });
  let server: TestNatsServer;
  let bus: SecureBus;
  let source: SourceSession;
  let warehouse: WarehouseSession;
  let pair: ReplicationPair;
  const opened: NatsConnection[] = [];

  const as = async (role: BusRole): Promise<NatsConnection> => {
    const connection = await connectNats(stack.nats.url, `attack-as-${role}`, bus.specOf(role));
    opened.push(connection);
    return connection;
  };
  const ca = () => readFileSync(bus.caFile, 'utf8');
  /** A role's real nkey, as an attacker who stole it but not the rest of the setup would hold it. */
  const authenticatorOf = (role: BusRole) => {
    const auth = bus.specOf(role).security?.auth;
    if (auth?.kind !== 'nkey') throw new Error(`no nkey for ${role}`);
    return nkeyAuthenticator(new TextEncoder().encode(auth.seed));
  };
  const url = () => stack.nats.url;

  beforeAll(async () => {
    await stack.start();
    bus = (stack.nats as unknown as { bus: SecureBus }).bus;
    source = await POSTGRES_TO_POSTGRES.openSource(stack);
    warehouse = await POSTGRES_TO_POSTGRES.openWarehouse(stack);
    await source.createTables(LIVE_TABLES);
    pair = new ReplicationPair({ stack, source, warehouse, bucketName: 'secure-bus' });
    await pair.create();
  }, 120000);

  afterAll(async () => {
    await Promise.allSettled(opened.map((connection) => connection.close()));
    await Promise.allSettled([source?.close(), warehouse?.close()]);
    await stack.stop();
  }, 60000);

  it('seeds and tracks both replications with every service on its own credentials over TLS', async () => {
    await pair.type1.waitFor(() => pair.tracking(), 90000, 'every table of both replications to be Tracking');
    await pair.waitForConvergence(60000);
    await source.apply(transaction(insert(ORDERS, [orderRow(900001, 'secured')])));
    await pair.waitForConvergence(60000);
  }, 180000);

  it('refuses an anonymous client, a wrong password, an unknown nkey, and plain text to the TLS-only server', async () => {
    const tls = { ca: ca() };
    const refusals = {
      anonymous: await connectOutcome({ servers: url(), tls }),
      wrongPassword: await connectOutcome({ servers: url(), tls, user: 'api-gateway', pass: 'Leak-Wh-Pw-456' }),
      unknownNkey: await connectOutcome({ servers: url(), tls, authenticator: nkeyAuthenticator(new TextEncoder().encode(newUserNkey().seed)) }),
      // A client that will not speak TLS at all, with a valid role's credentials.
      plainText: await connectOutcome({ servers: url().replace(/^tls:/, 'nats:'), tls: null, authenticator: authenticatorOf('extractor') }),
      // TLS without trusting the bus's CA: the server's certificate is not accepted.
      untrustedServer: await connectOutcome({ servers: url(), authenticator: authenticatorOf('extractor') }),
    };
    for (const [attempt, outcome] of Object.entries(refusals)) {
      expect({ attempt, kind: outcome.kind }).toEqual({ attempt, kind: 'refused' });
    }
    expect(refusals.anonymous.kind === 'refused' && refusals.anonymous.reason).toMatch(/authori[sz]ation/i);
    expect(refusals.wrongPassword.kind === 'refused' && refusals.wrongPassword.reason).toMatch(/authori[sz]ation/i);
    expect(refusals.untrustedServer.kind === 'refused' && refusals.untrustedServer.reason).toMatch(/certificate|self.signed|CERT/i);
  });

  it('the anonymous attack of the issue gets nothing: runtime configuration and signing keys are out of reach of every other role', async () => {
    const replicationId = pair.type1.replicationId;
    const gateway = await as('api-gateway');
    const loader = await as('loader');
    const operator = await as('operator');
    // The gateway, the operator and nobody else but pipeline workers: no runtime configuration.
    for (const connection of [gateway, operator]) {
      const outcome = await requestOutcome(connection, Subjects.registryRuntimeConfig, { replicationId });
      expect(outcome.kind).toBe('refused');
    }
    // A worker may not have signatures checked, run operations, or create access keys.
    const adminCall = { operation: 'ListWarehouseReplications', signed: signedCallFor('ListWarehouseReplications', '{}', ADMIN_KEY) };
    expect((await requestOutcome(loader, Subjects.registryCheckSignature, adminCall)).kind).toBe('refused');
    expect((await requestOutcome(loader, Subjects.registryOperation, { requestId: '1', payload: {}, ...adminCall })).kind).toBe('refused');
    expect((await requestOutcome(loader, Subjects.registryCreateAccessKey, { allowedOperations: ['*'] })).kind).toBe('refused');
    // Nor may the gateway create access keys (only an operator can).
    expect((await requestOutcome(gateway, Subjects.registryCreateAccessKey, { allowedOperations: ['*'] })).kind).toBe('refused');
  });

  it('the gateway’s own bus identity acts as no key: the registry verifies every call’s signature itself (issue 36 item 10)', async () => {
    const gateway = await as('api-gateway');
    // An operation as the admin, without the admin's signature: the registry answers, and refuses.
    const unsigned = await requestOutcome(gateway, Subjects.registryOperation, { requestId: '1', operation: 'StopReplicationService', payload: {}, accessKeyId: ADMIN_KEY.accessKeyId });
    expect(unsigned).toMatchObject({ kind: 'answered', text: expect.stringContaining('ValidationFailed') as unknown });
    const guessed = signedCallFor('StopReplicationService', '{}', { accessKeyId: ADMIN_KEY.accessKeyId, secretKey: 'guessed' });
    const forged = await requestOutcome(gateway, Subjects.registryOperation, { requestId: '2', operation: 'StopReplicationService', payload: {}, signed: guessed });
    expect(forged).toMatchObject({ kind: 'answered', text: expect.stringContaining('Forbidden') as unknown });
    // No key derived from a secret is handed out any more: the subject that did is neither allowed nor answered.
    expect((await requestOutcome(gateway, 'svc.registry.v1.access-key.signing-key', { accessKeyId: ADMIN_KEY.accessKeyId, date: '20261126', region: 'us-east-1', service: 'replication' })).kind).toBe('refused');
    // The service was not stopped: the pipeline still answers Describe as Running.
    expect((await pair.type1.describe()).status).toBe('Running');
  });

  it('a role cannot read another role’s replies, publish another stage’s results, or manage streams', async () => {
    const extractor = await as('extractor');
    const gateway = await as('api-gateway');
    const extractorErrors = serverErrors(extractor);
    const gatewayErrors = serverErrors(gateway);
    const watcher = await stack.connectNats('secure-bus-watcher');
    opened.push(watcher);
    const forged: string[] = [];
    // The pipeline's own results flow meanwhile: only the forged ones (workId 'forged') count.
    const keepForged = (_error: unknown, message: { subject: string; data: Uint8Array }) => {
      if (new TextDecoder().decode(message.data).includes('"forged"')) forged.push(message.subject);
    };
    watcher.subscribe(PipelineSubjects.batchLoaded, { callback: keepForged });
    watcher.subscribe(PipelineSubjects.workFailed, { callback: keepForged });
    await watcher.flush();

    // Snooping on every inbox (where runtime configurations and signing keys are answered) is refused.
    extractor.subscribe('_INBOX.>');
    gateway.subscribe('_INBOX.job-registry.>');
    // The gateway forging a load or a failure (watermarks moved, tables failed) is refused.
    const forgedLoad = { workId: 'forged', batchId: 'forged', replicationId: pair.type1.replicationId };
    gateway.publish(PipelineSubjects.batchLoaded, codec.encode(forgedLoad));
    gateway.publish(PipelineSubjects.workFailed, codec.encode(forgedLoad));
    await gateway.flush().catch(() => undefined);
    await extractor.flush().catch(() => undefined);
    // Workers and the gateway cannot purge or delete the streams: only the registry manages them.
    const purge = await requestOutcome(gateway, `$JS.API.STREAM.PURGE.${PipelineStreams.work.name}`, {});
    const remove = await requestOutcome(extractor, `$JS.API.STREAM.DELETE.${PipelineStreams.work.name}`, {});
    await new Promise((done) => setTimeout(done, 500));

    expect(forged).toEqual([]);
    expect(purge.kind).toBe('refused');
    expect(remove.kind).toBe('refused');
    expect(extractorErrors).toContain('PERMISSIONS_VIOLATION subscription _INBOX.>');
    expect(gatewayErrors).toEqual(
      expect.arrayContaining([
        'PERMISSIONS_VIOLATION subscription _INBOX.job-registry.>',
        `PERMISSIONS_VIOLATION publish ${PipelineSubjects.batchLoaded}`,
        `PERMISSIONS_VIOLATION publish ${PipelineSubjects.workFailed}`,
      ]),
    );
    expect((await (await watcher.jetstreamManager()).streams.info(PipelineStreams.work.name)).config.name).toBe(PipelineStreams.work.name);
  });

  it('keeps tracking through a NATS restart with TLS and authentication on', async () => {
    await stack.nats.restart();
    await source.apply(transaction(insert(ORDERS, [orderRow(900002, 'after-restart')])));
    await pair.waitForConvergence(90000);
  }, 150000);

  it('never refused a service anything: only the attacks above were told PERMISSIONS_VIOLATION', () => {
    const violations = server.violations();
    // Proof that the server's refusals are seen at all: the attacks of the tests above were each logged.
    expect(violations.some((line) => line.includes('attack-as-'))).toBe(true);
    expect(violations.filter((line) => !line.includes('attack-as-'))).toEqual([]);
  });
});
