import { connectNats, NatsRequester } from '@svc/messaging';
import { healthSubject } from '@svc/contracts';
import {
  createTempDatabase,
  freePort,
  startTestNats,
  startTestS3,
  waitUntil,
  type TempDatabase,
  type TestNats,
  type TestS3,
} from '@svc/testing';
import { ServiceProcess } from './service-process';

export const ADMIN_KEY = { accessKeyId: 'SVCE2EADMINKEY000001', secretKey: 'e2e-admin-secret-key-0123456789abcdef' };
const MASTER_KEY = 'a'.repeat(64);

/**
 * The API half of the system as separate processes (job-registry + api-gateway from dist/) on a NATS
 * server, a control database and an S3 server of its own, plus three empty databases to replicate with.
 */
export class TestStack {
  registry!: ServiceProcess;
  gateway!: ServiceProcess;
  baseUrl = '';
  nats!: TestNats;
  s3!: TestS3;
  control!: TempDatabase;
  source!: TempDatabase;
  staging!: TempDatabase;
  warehouse!: TempDatabase;
  private env: Record<string, string> = {};

  async start(): Promise<void> {
    [this.nats, this.s3, this.control, this.source, this.staging, this.warehouse] = await Promise.all([
      startTestNats(),
      startTestS3(),
      createTempDatabase('svc_e2e_registry'),
      createTempDatabase('svc_e2e_source'),
      createTempDatabase('svc_e2e_staging'),
      createTempDatabase('svc_e2e_warehouse'),
    ]);
    const port = await freePort();
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.env = {
      NATS_URL: this.nats.url,
      DATABASE_URL: this.control.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_BOOTSTRAP_ACCESS_KEY_ID: ADMIN_KEY.accessKeyId,
      SVC_BOOTSTRAP_SECRET_KEY: ADMIN_KEY.secretKey,
      S3_ENDPOINT: this.s3.endpoint,
      S3_ACCESS_KEY_ID: this.s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: this.s3.secretAccessKey,
      S3_ALLOW_BUCKET_CREATION: 'true',
      LOG_LEVEL: 'info',
    };
    this.registry = new ServiceProcess('job-registry', this.env);
    this.gateway = new ServiceProcess('api-gateway', this.env);
    await this.startRegistry();
    this.gateway.start();
    await waitUntil(async () => (await fetch(`${this.baseUrl}/health`)).status === 200, 30000, 'api-gateway /health');
  }

  async startRegistry(): Promise<void> {
    this.registry = new ServiceProcess('job-registry', this.env);
    this.registry.start();
    const connection = await connectNats(this.nats.url, 'e2e-probe');
    try {
      const requester = new NatsRequester(connection, 1000);
      await waitUntil(
        async () => {
          if (this.registry.exited) throw new Error(`job-registry exited:\n${this.registry.logs()}`);
          return requester.request(healthSubject('job-registry'), {}).then(() => true);
        },
        30000,
        'job-registry health',
      );
    } finally {
      await connection.close();
    }
  }

  async restartRegistry(): Promise<void> {
    await this.registry.stop();
    await this.startRegistry();
  }

  /** Every line the services logged; tests assert secrets never appear here. */
  logs(): string {
    return this.registry.logs() + this.gateway.logs();
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.gateway?.stop(), this.registry?.stop()]);
    await Promise.allSettled([
      this.nats?.stop(),
      this.s3?.stop(),
      this.control?.drop(),
      this.source?.drop(),
      this.staging?.drop(),
      this.warehouse?.drop(),
    ]);
  }
}
