import type { NatsConnection } from 'nats';
import { BusNames, NatsRequester, connectNats } from '@svc/messaging';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { INSTALLATION_SETTING, healthSubject, iamRoleArn, type ServiceName } from '@svc/contracts';
import { ExternalIdIssuer } from '@svc/crypto';
import {
  TEST_WORKER_KEY,
  createTempDatabase,
  freePort,
  startTestNats,
  startTestS3,
  startTestSts,
  waitUntil,
  type TempDatabase,
  type TestNats,
  type TestS3,
  type TestSts,
} from '@svc/testing';
import { isSecuredTestNats } from './secure-nats';
import { ServiceProcess } from './service-process';
import { send } from './signed-client';

export const ADMIN_KEY = { accessKeyId: 'SVCE2EADMINKEY000001', secretKey: 'e2e-admin-secret-key-0123456789abcdef' };
/** The gateway's METRICS_TOKEN in a stack (unless `env` says otherwise): scrape /metrics with `Authorization: Bearer <it>`. */
export const TEST_METRICS_TOKEN = 'e2e-metrics-token-0123456789';
const MASTER_KEY = 'a'.repeat(64);

export interface TestStackOptions {
  /** Services to run besides job-registry and api-gateway (the pipeline workers). */
  workers?: ServiceName[];
  /** Extra environment for every service (scheduler speed, chunk sizes...). */
  env?: Record<string, string>;
  /** The NATS the stack runs on; default a private single server (startTestNats). A cluster's url lists every node. */
  startNats?: () => Promise<TestNats>;
  /** With TLS_CERT_FILE in `env` the gateway serves HTTPS: the CA (PEM) that signed its certificate, for the stack's own health probe. */
  gatewayCa?: string;
  /** The server of the source database (a URL to its `postgres` database); the test server when absent. */
  sourceServer?: () => Promise<string>;
  /** SVC_INSTALLATION of every service (two stacks on one NATS); the default installation when absent. */
  installation?: string;
}

/**
 * The system as separate processes (from dist/) on a NATS server, a control database and an S3 server of
 * its own, plus three empty databases to replicate between (source, staging, warehouse), and an STS double
 * (STS_ENDPOINT) whose sessions carry the S3 server's keys: IAMRole replications work once a test trusts their
 * role (`stack.sts.trustRole`), as a customer's trust policy would.
 */
export class TestStack {
  readonly processes = new Map<ServiceName, ServiceProcess>();
  baseUrl = '';
  nats!: TestNats;
  s3!: TestS3;
  sts!: TestSts;
  control!: TempDatabase;
  source!: TempDatabase;
  staging!: TempDatabase;
  warehouse!: TempDatabase;
  private env: Record<string, string> = {};

  constructor(private readonly options: TestStackOptions = {}) {}

  get registry(): ServiceProcess {
    return this.process('job-registry');
  }

  get gateway(): ServiceProcess {
    return this.process('api-gateway');
  }

  process(service: ServiceName): ServiceProcess {
    const found = this.processes.get(service);
    if (!found) throw new Error(`${service} is not part of this stack`);
    return found;
  }

  async start(): Promise<void> {
    [this.nats, this.s3, this.control, this.source, this.staging, this.warehouse] = await Promise.all([
      (this.options.startNats ?? startTestNats)(),
      startTestS3(),
      createTempDatabase('svc_e2e_registry'),
      this.options.sourceServer ? this.options.sourceServer().then((server) => createTempDatabase('svc_e2e_source', server)) : createTempDatabase('svc_e2e_source'),
      createTempDatabase('svc_e2e_staging'),
      createTempDatabase('svc_e2e_warehouse'),
    ]);
    this.sts = await startTestSts({ issuedKeys: { accessKeyId: this.s3.accessKeyId, secretAccessKey: this.s3.secretAccessKey } });
    const port = await freePort();
    this.baseUrl = `${this.options.env?.['TLS_CERT_FILE'] ? 'https' : 'http'}://127.0.0.1:${port}`;
    this.env = {
      NATS_URL: this.nats.url,
      DATABASE_URL: this.control.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_WORKER_KEY: TEST_WORKER_KEY,
      // Every database of a test stack is on this machine's PostgreSQL.
      ALLOW_LOOPBACK_TARGETS: 'true',
      SVC_BOOTSTRAP_ACCESS_KEY_ID: ADMIN_KEY.accessKeyId,
      SVC_BOOTSTRAP_SECRET_KEY: ADMIN_KEY.secretKey,
      S3_ENDPOINT: this.s3.endpoint,
      S3_ACCESS_KEY_ID: this.s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: this.s3.secretAccessKey,
      STS_ENDPOINT: this.sts.endpoint,
      S3_ALLOW_BUCKET_CREATION: 'true',
      LOG_LEVEL: process.env['SVC_TEST_LOG_LEVEL'] ?? 'info',
      METRICS_TOKEN: TEST_METRICS_TOKEN,
      // Work a killed worker held is delivered again after this (15 s by default): the kill tests wait it out each time.
      NATS_ACK_WAIT_SECONDS: '5',
      ...(this.options.installation !== undefined && { [INSTALLATION_SETTING]: this.options.installation }),
      ...this.options.env,
    };
    await this.startService('job-registry');
    for (const worker of this.options.workers ?? []) await this.startService(worker);
    await this.startService('api-gateway');
  }

  /**
   * Plays the customer of an IAMRole replication: the role `accountId`/`roleName` trusts the stack's service identity
   * with the ExternalId the registry issues to `ownerAccessKeyId` (computed as the registry does, from the stack's
   * master key), and `bucketName` exists. Returns that ExternalId. Tests of how a customer learns it use a refused
   * Create instead.
   */
  async prepareIamRole(role: { accountId: string; roleName: string; bucketName: string; region?: string }, ownerAccessKeyId = ADMIN_KEY.accessKeyId): Promise<string> {
    const externalId = new ExternalIdIssuer(Buffer.from(MASTER_KEY, 'hex')).issue({ ownerAccessKeyId, accountId: role.accountId, roleName: role.roleName });
    this.sts.trustRole({ roleArn: iamRoleArn(role, role.region ?? 'us-east-1'), principalAccessKeyId: this.s3.accessKeyId, externalId });
    const s3 = new S3Client({
      endpoint: this.s3.endpoint,
      forcePathStyle: true,
      region: role.region ?? 'us-east-1',
      credentials: { accessKeyId: this.s3.accessKeyId, secretAccessKey: this.s3.secretAccessKey },
    });
    try {
      await s3.send(new CreateBucketCommand({ Bucket: role.bucketName })).catch((error: unknown) => {
        if ((error as { name?: unknown }).name !== 'BucketAlreadyOwnedByYou') throw error;
      });
    } finally {
      s3.destroy();
    }
    return externalId;
  }

  /** A connection of the test's own: on a secured bus as its administrator (allowed everything), to look into streams. */
  connectNats(name: string): Promise<NatsConnection> {
    return connectNats(this.nats.url, name, isSecuredTestNats(this.nats) ? this.nats.bus.administrator : {});
  }

  /** The settings `service` runs with: on a secured bus, its own role's credentials. */
  envOf(service: ServiceName): Record<string, string> {
    return isSecuredTestNats(this.nats) ? { ...this.env, ...this.nats.bus.envOf(service) } : { ...this.env };
  }

  async startService(service: ServiceName): Promise<void> {
    const child = new ServiceProcess(service, this.envOf(service));
    this.processes.set(service, child);
    child.start();
    if (service === 'api-gateway') {
      const health = async (): Promise<boolean> =>
        (await send(this.baseUrl, 'GET', '/health', {}, '', { ...(this.options.gatewayCa !== undefined && { ca: this.options.gatewayCa }) })).status === 200;
      await waitForService(child, health, 'api-gateway /health');
      return;
    }
    const connection = await this.connectNats('e2e-probe');
    try {
      const requester = new NatsRequester(connection, 1000, undefined, new BusNames(this.options.installation ?? ''));
      await waitForService(child, () => requester.request(healthSubject(service), {}).then(() => true), `${service} health`);
    } finally {
      await connection.close();
    }
  }

  /** Stops one service (SIGTERM); `startService` brings it back. */
  async stopService(service: ServiceName): Promise<void> {
    await this.processes.get(service)?.stop('SIGTERM');
  }

  /** SIGKILL, as a crash: the service gets no chance to finish or hand back its work; `startService` brings it back. */
  async killService(service: ServiceName): Promise<void> {
    await this.processes.get(service)?.stop('SIGKILL');
  }

  async restart(service: ServiceName, options: { kill?: boolean } = {}): Promise<void> {
    await this.processes.get(service)?.stop(options.kill ? 'SIGKILL' : 'SIGTERM');
    await this.startService(service);
  }

  async restartRegistry(): Promise<void> {
    await this.restart('job-registry');
  }

  /** Every line the services logged; tests assert secrets never appear here. */
  logs(): string {
    return [...this.processes.values()].map((child) => child.logs()).join('');
  }

  /** Stops everything and drops the databases (SVC_TEST_KEEP_DATABASES=1 keeps them, to look into a failure). */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.processes.values()].map((child) => child.stop()));
    const databases = process.env['SVC_TEST_KEEP_DATABASES'] === '1' ? [] : [this.control, this.source, this.staging, this.warehouse];
    await Promise.allSettled([this.nats?.stop(), this.s3?.stop(), this.sts?.stop(), ...databases.map((database) => database?.drop())]);
  }
}

/**
 * Waits until `probe` answers, failing at once when the service exits: one that could not bind its port (taken
 * meanwhile) must not pass as started because another process answers on that port.
 */
async function waitForService(child: ServiceProcess, probe: () => Promise<boolean>, what: string): Promise<void> {
  await waitUntil(async () => child.exited || (await probe()), 30000, what);
  if (child.exited) throw new Error(`${child.service} exited:\n${child.logs()}`);
}
