import type { WarehouseConfig } from '@svc/contracts';
import {
  TEST_POSTGRES_SERVER_URL,
  createTempDatabase,
  databaseUrl,
  freePort,
  startSilentServer,
  startTestS3,
  type SilentServer,
  type TempDatabase,
  type TestS3,
} from '@svc/testing';
import { Client } from 'pg';
import { mssqlDriver } from '@svc/sqlserver/common';
import { UNSUPPORTED_CONNECTION_STRING } from './engine';
import { checkReachability, type ReachabilityOptions } from './reachability';

const BUCKET = 'reachability-bucket';
const SECRET = 'Sup3r-Secret-Value';

describe('checkReachability end to end', () => {
  let source: TempDatabase;
  let staging: TempDatabase;
  let dw: TempDatabase;
  let s3: TestS3;
  let silent: SilentServer;
  let options: ReachabilityOptions;

  const warehouse = (overrides: Partial<WarehouseConfig> = {}): WarehouseConfig => ({
    accessType: 'AccessKey',
    accessKey: s3.accessKeyId,
    secretKey: s3.secretAccessKey,
    bucketName: BUCKET,
    bucketFolderName: '/replication/data',
    regionEndpoint: 'us-east-1',
    retentionDays: 7,
    url: TEST_POSTGRES_SERVER_URL,
    databaseSchema: 'public',
    databaseName: dw.name,
    username: 'postgres',
    password: SECRET,
    scdType: 'Type1',
    ...overrides,
  });

  beforeAll(async () => {
    [source, staging, dw] = await Promise.all([
      createTempDatabase('svc_reach_src'),
      createTempDatabase('svc_reach_stg'),
      createTempDatabase('svc_reach_dw'),
    ]);
    s3 = await startTestS3({ buckets: [BUCKET] });
    silent = await startSilentServer();
    options = { timeoutMs: 5000, s3: { endpoint: s3.endpoint, allowBucketCreation: false } };
  });

  afterAll(async () => {
    await Promise.all([source.drop(), staging.drop(), dw.drop(), s3.stop(), silent.stop()]);
  });

  it('returns no messages when source, staging, warehouse and bucket are all reachable', async () => {
    const messages = await checkReachability(
      {
        source: { connectionString: source.url, encryptDataInTransit: false },
        staging: { connectionString: staging.url, encryptDataInTransit: false },
        warehouse: warehouse(),
      },
      options,
    );
    expect(messages).toEqual([]);
  });

  it('reports each failing target under its field, in seed order, without secrets', async () => {
    const closedPort = await freePort();
    const messages = await checkReachability(
      {
        source: { connectionString: `postgres://postgres:${SECRET}@127.0.0.1:${closedPort}/x`, encryptDataInTransit: false },
        staging: { connectionString: staging.url, encryptDataInTransit: false },
        warehouse: warehouse({ databaseName: `${dw.name}_missing`, bucketName: 'reachability-missing' }),
      },
      options,
    );
    expect(messages).toEqual([
      `{Source\\ConnectionString}: cannot reach 127.0.0.1:${closedPort} (refused, timed out, unknown host or TLS failed)`,
      `{Warehouse\\DatabaseName}: cannot connect: database "${dw.name}_missing" does not exist`,
      '{Warehouse\\BucketName}: cannot write to bucket: bucket does not exist',
    ]);
    expect(messages.join('\n')).not.toContain(SECRET);
    expect(messages.join('\n')).not.toContain(s3.secretAccessKey);
  });

  it('puts a login the warehouse refuses on {Warehouse\\Password}, not on the address that answered (issue 40)', async () => {
    // The shared test server trusts every password; a role that may not log in is refused all the same (SQLSTATE 28000).
    const admin = new Client({ connectionString: dw.url });
    await admin.connect();
    try {
      await admin.query('DROP ROLE IF EXISTS svc_reach_no_login');
      await admin.query('CREATE ROLE svc_reach_no_login NOLOGIN');
      const messages = await checkReachability({ warehouse: warehouse({ username: 'svc_reach_no_login' }) }, options);
      expect(messages).toEqual(['{Warehouse\\Password}: cannot connect: authentication failed: the warehouse refused {Warehouse\\Username} with this {Warehouse\\Password}']);
    } finally {
      await admin.query('DROP ROLE IF EXISTS svc_reach_no_login').catch(() => undefined);
      await admin.end();
    }
  });

  it('reports an unsupported connection string and a refused bucket credential', async () => {
    const messages = await checkReachability(
      {
        source: { connectionString: source.url, encryptDataInTransit: false },
        staging: { connectionString: `Host=127.0.0.1;Password=${SECRET}`, encryptDataInTransit: false },
        warehouse: warehouse({ accessKey: 'AKIAUNKNOWN' }),
      },
      options,
    );
    expect(messages).toEqual([
      `{Staging\\ConnectionString}: ${UNSUPPORTED_CONNECTION_STRING}`,
      '{Warehouse\\BucketName}: cannot write to bucket: access denied: unknown access key',
    ]);
  });

  it('checks only the parts it is given (Alter of a source connection string)', async () => {
    const messages = await checkReachability(
      { source: { connectionString: databaseUrl(`${source.name}_gone`), encryptDataInTransit: false } },
      options,
    );
    expect(messages).toEqual(['{Source\\ConnectionString}: cannot connect: database does not exist']);
  });

  it('returns within the deadline when targets never answer', async () => {
    const silentEndpoint = `http://127.0.0.1:${silent.port}`;
    // The SQL Server driver loads at its first connection (0.3 CPU-s, more on a busy machine): load it before timing.
    mssqlDriver();
    const started = Date.now();
    const messages = await checkReachability(
      {
        source: { connectionString: source.url, encryptDataInTransit: false },
        staging: { connectionString: `Server=127.0.0.1,${silent.port};Database=x;User ID=sa;Password=${SECRET}`, encryptDataInTransit: false },
        warehouse: warehouse({ url: `127.0.0.1:${silent.port}` }),
      },
      { timeoutMs: 1000, s3: { ...options.s3, endpoint: silentEndpoint } },
    );
    const elapsed = Date.now() - started;
    expect(messages).toEqual([
      `{Staging\\ConnectionString}: cannot reach 127.0.0.1:${silent.port} (refused, timed out, unknown host or TLS failed)`,
      `{Warehouse\\Url}: cannot reach 127.0.0.1:${silent.port} (refused, timed out, unknown host or TLS failed)`,
      '{Warehouse\\BucketName}: cannot reach the S3 endpoint (refused, timed out, unknown host or TLS failed)',
    ]);
    // The 1 s deadline, not the drivers' own connect timeouts (15 s and more); the rest is room for a busy machine.
    expect(elapsed).toBeLessThan(2500);
  });

  /**
   * Issue 19: telling refused, timed out, unknown host and TLS failures apart would make Create a port scanner. A
   * closed port, a port that accepts and never answers, a name that does not resolve, and a real PostgreSQL that
   * offers no TLS to a Source that demands it all get one text, which names only the address the caller gave.
   */
  it.each([
    ['PostgreSQL', (host: string, port: number) => `postgres://postgres:${SECRET}@${host}:${port}/x`],
    ['SQL Server', (host: string, port: number) => `Server=${host},${port};Database=x;User ID=sa;Password=${SECRET}`],
  ])('answers every "cannot reach" class of a %s source alike', async (engine, connectionString) => {
    const closedPort = await freePort();
    const postgresPort = Number(new URL(TEST_POSTGRES_SERVER_URL.replace(/^[a-z]+:/, 'http:')).port || 5432);
    const attempts: [string, number, boolean][] = [
      ['127.0.0.1', closedPort, false],
      ['127.0.0.1', silent.port, false],
      ['no-such-host.invalid', 5432, false],
      ...(engine === 'PostgreSQL' ? ([['127.0.0.1', postgresPort, true]] as [string, number, boolean][]) : []),
    ];
    const messages = await Promise.all(
      attempts.map(async ([host, port, encrypt]) => {
        const [message] = await checkReachability({ source: { connectionString: connectionString(host, port), encryptDataInTransit: encrypt } }, { ...options, timeoutMs: 1500 });
        return message?.replace(`${host}:${port}`, '<address>');
      }),
    );
    expect(messages).toEqual(attempts.map(() => '{Source\\ConnectionString}: cannot reach <address> (refused, timed out, unknown host or TLS failed)'));
    expect(messages.join('\n')).not.toContain(SECRET);
  });
});
