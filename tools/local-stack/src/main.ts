import type { ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { EnvReader, readNatsSecurity } from '@svc/config';
import { connectNats, NatsRequester, natsServerList, type NatsConnectionSpec } from '@svc/messaging';
import { healthSubject, type ServiceName } from '@svc/contracts';
import { EMBEDDED_S3_CREDENTIALS_FILE, developmentKeyPath, embeddedS3CredentialsPath, loadOrCreateDevelopmentKey, loadOrCreateS3Credentials } from '@svc/testing';
import { EXAMPLE_BUCKET, startEmbeddedS3 } from './embedded-s3';
import { trustMasterKeys } from './embedded-sts-trust';
import { identityFileOf } from './bus-identities';
import { prepareLocalBus, type LocalBus } from './local-bus';
import { LocalNatsServer } from './local-nats-server';
import {
  apiTransportNotice,
  developmentKeyProblem,
  liveDemoEnvironment,
  localEnvironment,
  usesDevelopmentKey,
  withDevelopmentKey,
  withEmbeddedS3Account,
  type OwnNats,
} from './local-settings';
import { findNatsServer } from './nats-server-binary';
import { outdatedNodeNotice, unsupportedNodeProblem, withoutRepeatedSdkWarning } from './node-runtime';
import { tcpReachable } from './preflight';
import { RestartPolicy } from './restart-policy';
import { RunningStackRecord } from './running-stack-record';
import { outputFormatOf, ServiceLogFiles } from './service-output';
import { START_ORDER, spawnLiveDemo, spawnNatsServer, spawnService, type OutputSink } from './services';
import { Stack } from './stack';

const repoRoot = resolve(__dirname, '..', '..', '..', '..');
const distRoot = join(repoRoot, 'dist');

async function waitForHealth(requester: NatsRequester, service: ServiceName, child: ChildProcess, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${service} exited with code ${child.exitCode} during start`);
    const healthy = await requester
      .request(healthSubject(service), {}, 1000)
      .then(() => true)
      .catch(() => false);
    if (healthy) return;
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`${service} did not become healthy within ${deadlineMs / 1000} s`);
}

async function waitForHttp(url: string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const answered = await fetch(url, { signal: AbortSignal.timeout(1000) })
      .then(() => true)
      .catch(() => false);
    if (answered) return;
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`the api-gateway did not answer on ${url} within ${deadlineMs / 1000} s`);
}

/**
 * Starts a service and starts it again whenever it stops on its own (a crash, a kill), after the restart
 * policy's delay, until the stack stops: the pipeline resumes its work from NATS and the registry.
 */
function supervise(stack: Stack, service: ServiceName, env: Record<string, string>, policy = new RestartPolicy()): ChildProcess {
  const child = spawnService(distRoot, service, env, outputSink);
  const startedAt = Date.now();
  stack.addChild(service, child);
  child.once('exit', (code, signal) => {
    if (stack.isStopping) return;
    const delayMs = policy.delayAfterExit(Date.now() - startedAt);
    process.stderr.write(`${service} stopped unexpectedly (${code === null ? `signal ${signal ?? 'unknown'}` : `exit code ${code}`}); restarting it in ${delayMs / 1000} s\n`);
    stack.schedule(() => supervise(stack, service, env, policy), delayMs);
  });
  return child;
}

/** The nats-server binary npm start's own bus runs; without one npm start stops, saying how to get one. */
function requiredNatsServer(): string {
  const found = findNatsServer(process.env);
  if ('problem' in found) throw new Error(found.problem);
  return found.binary;
}

/** npm start's own nats-server, up and supervised, stopped with the stack. */
async function startOwnBus(stack: Stack, ownNats: OwnNats & { binary: string }, dir: string): Promise<LocalBus> {
  if (ownNats.ignored.length > 0) {
    process.stderr.write(`${ownNats.ignored.join(', ')}: not used, since NATS_URL is unset: npm start runs its own nats-server, with an identity per service (set NATS_URL to use your server)\n`);
  }
  const bus = prepareLocalBus({ dir, port: ownNats.port });
  const server = new LocalNatsServer({ binary: ownNats.binary, bus, launch: (command, args) => spawnNatsServer(command, args, outputSink), report: (text) => process.stderr.write(`${text}\n`) });
  stack.addBus(server);
  await server.start();
  return bus;
}

async function start(stack: Stack): Promise<void> {
  const local = localEnvironment(process.env);
  const { defaulted, embeddedS3Port, ownNats } = local;
  const keyProblem = developmentKeyProblem(local);
  if (keyProblem) throw new Error(keyProblem);
  const tooOld = unsupportedNodeProblem(process.version);
  if (tooOld) throw new Error(tooOld);
  const ownNatsServer = ownNats !== null ? { ...ownNats, binary: requiredNatsServer() } : null;
  const notice = outdatedNodeNotice(process.version);
  if (notice) process.stderr.write(`${notice}\n`);
  const developmentKeyFile = developmentKeyPath(local.env, repoRoot);
  const developmentKey = usesDevelopmentKey(local) ? loadOrCreateDevelopmentKey(developmentKeyFile) : null;
  const keyedEnv = developmentKey !== null ? withDevelopmentKey(local.env, developmentKey) : local.env;
  const credentialsFile = embeddedS3CredentialsPath(local.env, repoRoot);
  const embeddedS3Account = embeddedS3Port !== null ? loadOrCreateS3Credentials(credentialsFile) : null;
  const stackEnv = embeddedS3Account !== null ? withEmbeddedS3Account(keyedEnv, embeddedS3Account) : keyedEnv;
  const env = notice ? withoutRepeatedSdkWarning(stackEnv) : stackEnv;
  const natsUrl = env['NATS_URL'] ?? '';
  const databaseUrl = env['DATABASE_URL'] ?? '';
  for (const [name, url, port] of [
    ...(ownNats === null ? [['NATS', natsUrl, 4222] as const] : []),
    ['PostgreSQL', databaseUrl, 5432] as const,
  ]) {
    const problem = await tcpReachable(url, port);
    if (problem) throw new Error(`${name} is not answering (${problem}); start it and run again (see README)`);
  }

  const ownBus = ownNatsServer !== null ? await startOwnBus(stack, ownNatsServer, env['LOCAL_NATS_DIR'] || join(repoRoot, 'tmp', 'nats')) : null;
  const trustKeys = trustMasterKeys(env);
  if (embeddedS3Port !== null && embeddedS3Account !== null) {
    const masterKeys = 'keys' in trustKeys ? trustKeys.keys : [];
    stack.addS3(await startEmbeddedS3(embeddedS3Port, env['EMBEDDED_S3_DIR'] ?? join(repoRoot, 'tmp', 's3rver'), embeddedS3Account, { databaseUrl, masterKeys }));
  }

  // On the own bus each service gets its role's identity only.
  const serviceEnv = (service: ServiceName) => (ownBus !== null ? { ...env, NATS_NKEY_SEED: ownBus.seedOf(service) } : env);
  const natsSpec = healthCheckIdentity(ownBus, env);
  const connection = await connectNats(natsUrl, 'local-stack', natsSpec);
  const requester = new NatsRequester(connection, 2000);
  try {
    for (const service of START_ORDER) {
      const child = supervise(stack, service, serviceEnv(service));
      await waitForHealth(requester, service, child, 60000);
    }
  } finally {
    await connection.close();
  }
  // The gateway answers on NATS before its HTTP port listens: "up" is said once the API itself answers.
  await waitForHttp(`http://127.0.0.1:${env['PORT'] ?? ''}/health`, 30000);

  process.stdout.write(
    [
      '',
      `Replication service is up: API at http://127.0.0.1:${env['PORT']}/api/<Operation>, health at /health.`,
      `Operator console: http://127.0.0.1:${env['PORT']}/console/ (sign in with the access key below).`,
      apiTransportNotice(env),
      embeddedS3Port !== null
        ? `Embedded S3 server at ${env['S3_ENDPOINT']}: it accepts only requests signed with the access key in ${credentialsFile} (yours alone, the same on every start).`
        : `S3 endpoint: ${env['S3_ENDPOINT']}`,
      embeddedS3Port !== null ? embeddedStsNotice(env, trustKeys) : '',
      developmentKey !== null
        ? `Development access key: SVC_ACCESS_KEY_ID=${developmentKey.accessKeyId} SVC_SECRET_ACCESS_KEY=${developmentKey.secretKey} ` +
          `(this installation's own, kept in ${developmentKeyFile}; npm run svc in this checkout uses it by itself while npm start runs)`
        : 'Access key: the one in SVC_BOOTSTRAP_ACCESS_KEY_ID.',
      defaulted.length ? `Development defaults in use (never for real data): ${defaulted.join(', ')}` : '',
      natsNotice(ownBus, natsSpec),
      outputSink.format === 'human'
        ? `Each service's log: ${outputSink.files.directory}/<service>.log; only warnings and errors are shown here (LOG_FORMAT=json shows every line).`
        : '',
      'Ctrl-C stops everything.',
      '',
    ]
      .filter((line, index, lines) => line !== '' || index === 0 || index === lines.length - 1)
      .join('\n'),
  );
  const recordedBus = ownBus !== null ? { natsUrl: ownBus.url, operatorSeedFile: identityFileOf(ownBus.keysDir, 'operator') } : undefined;
  runningStackRecord.write(`http://127.0.0.1:${env['PORT'] ?? ''}`, developmentKey ?? undefined, recordedBus);
  const demoEnv = liveDemoEnvironment({ env, defaulted });
  if (demoEnv) stack.addChild('demo', spawnLiveDemo(distRoot, { ...demoEnv, [EMBEDDED_S3_CREDENTIALS_FILE]: credentialsFile }, outputSink));
}

/** What npm start says of the STS that IAMRole replications ask: the embedded server's, or the user's. */
function embeddedStsNotice(env: Record<string, string>, trustKeys: ReturnType<typeof trustMasterKeys>): string {
  if (env['STS_ENDPOINT'] !== env['S3_ENDPOINT']) return `STS (IAMRole replications): ${env['STS_ENDPOINT'] ?? `STS_ENDPOINT_FILE ${env['STS_ENDPOINT_FILE'] ?? ''}`}.`;
  if ('problem' in trustKeys) return `STS (IAMRole replications): the embedded S3 server answers sts:AssumeRole, but ${trustKeys.problem}.`;
  return (
    `STS (IAMRole replications): the embedded S3 server also answers sts:AssumeRole, for any role whose ExternalId is the one ` +
    `this installation issues (its sessions sign S3 requests to it); bucket ${EXAMPLE_BUCKET} exists for the examples.`
  );
}

/** Who npm start's health checks are on the bus: an operator on its own bus (allowed every service's health), else the user's NATS settings. */
function healthCheckIdentity(ownBus: LocalBus | null, env: Record<string, string>): NatsConnectionSpec {
  if (ownBus !== null) return { security: { auth: { kind: 'nkey', seed: ownBus.seedOf('operator') } }, role: 'operator' };
  const natsEnv = new EnvReader(env);
  const security = readNatsSecurity(natsEnv, natsServerList(env['NATS_URL'] ?? ''));
  natsEnv.done();
  return { security };
}

/** What npm start says of its bus: its own, closed to anyone without an identity; or the user's, when that one is open. */
function natsNotice(ownBus: LocalBus | null, spec: NatsConnectionSpec): string {
  if (ownBus !== null) {
    return (
      `NATS: npm start's own nats-server at ${ownBus.url} (JetStream in ${ownBus.storeDir}): each service signs in with its own role's nkey ` +
      `(seeds in ${ownBus.keysDir}, yours alone) and may do only its part; anonymous clients are refused.`
    );
  }
  return spec.security?.auth === undefined
    ? 'NATS: no credentials and no TLS: anyone who reaches that server can read and drive every replication; development only, keep it on loopback (README, Security).'
    : '';
}

const stack = new Stack();
const outputSink: OutputSink = {
  format: outputFormatOf(process.env),
  files: new ServiceLogFiles(process.env['LOCAL_STACK_LOG_DIR'] || join(repoRoot, 'tmp', 'logs')),
};
const runningStackRecord = new RunningStackRecord(process.env['LOCAL_STACK_STATE_FILE'] || join(repoRoot, 'tmp', 'local-stack.json'));
const shutdown = (code: number) =>
  void stack.stop().then(() => {
    runningStackRecord.remove();
    if (code === 0) process.stdout.write("Stopped: every service, npm start's nats-server, the embedded S3 server and the live demo.\n");
    process.exit(code);
  });
const stopOnSignal = (signal: string) => {
  if (!stack.isStopping) process.stdout.write(`\n${signal}: stopping the replication service…\n`);
  shutdown(0);
};
process.on('SIGINT', () => stopOnSignal('Ctrl-C'));
process.on('SIGTERM', () => stopOnSignal('SIGTERM'));
start(stack).catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  shutdown(1);
});
