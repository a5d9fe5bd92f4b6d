import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { Client } from 'pg';
import { connect } from 'nats';
import { DEVELOPMENT_MASTER_KEY } from '@svc/config';
import { healthSubject } from '@svc/contracts';
import { ExternalIdIssuer, parseMasterKey } from '@svc/crypto';
import { BUS_ROLES, connectNats, NatsRequester } from '@svc/messaging';
import { callSigned } from '@svc/system-testing';
import {
  createTempDatabase,
  freePort,
  readDevelopmentKey,
  readS3Credentials,
  reserveTempDatabase,
  TEST_POSTGRES_URL,
  waitUntil,
  type TempDatabase,
} from '@svc/testing';

const repoRoot = resolve(__dirname, '..', '..', '..');

/** What the README promises: `npm start` brings the system up, then `svc create --file <example>` works. */
describe('npm start and the svc CLI, as the README says', () => {
  let databases: TempDatabase[] = [];
  let control: TempDatabase;
  let stack: ChildProcess;
  let output = '';
  let port = 0;
  let workDir = '';
  let s3Port = 0;
  let natsPort = 0;
  // The live demo makes its databases `<prefix>_source`, `<prefix>_staging` and `<prefix>_warehouse` itself.
  const livePrefix = reserveTempDatabase('svc_e2e_live').name;

  beforeAll(async () => {
    control = reserveTempDatabase('svc_e2e_stack_registry');
    databases = await Promise.all(['svc_e2e_stack_src', 'svc_e2e_stack_stg', 'svc_e2e_stack_wh'].map((prefix) => createTempDatabase(prefix)));
    port = await freePort();
    workDir = mkdtempSync(join(tmpdir(), 'svc-e2e-stack-'));
    s3Port = await freePort();
    natsPort = await freePort();
    stack = spawn(process.execPath, [join(repoRoot, 'dist/tools/local-stack/src/main.js')], {
      env: {
        ...process.env,
        // Unset, as in a fresh shell: npm start runs its own nats-server (on a port of the test's own, not 4322).
        NATS_URL: '',
        LOCAL_NATS_PORT: String(natsPort),
        LOCAL_NATS_DIR: join(workDir, 'nats'),
        DATABASE_URL: control.url,
        PORT: String(port),
        HOST: '',
        EMBEDDED_S3_PORT: String(s3Port),
        EMBEDDED_S3_DIR: join(workDir, 's3'),
        EMBEDDED_S3_CREDENTIALS_FILE: join(workDir, 's3-credentials.json'),
        DEVELOPMENT_KEY_FILE: join(workDir, 'development-key.json'),
        SVC_MASTER_KEY: '',
        // Unset: IAMRole replications assume their roles at the embedded S3 server's STS.
        STS_ENDPOINT: '',
        SVC_BOOTSTRAP_ACCESS_KEY_ID: '',
        SVC_BOOTSTRAP_SECRET_KEY: '',
        SVC_DEMO: '',
        DEMO_DATABASE_PREFIX: livePrefix,
        DEMO_POSTGRES_URL: '',
        LOCAL_STACK_STATE_FILE: join(workDir, 'local-stack.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stack.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    stack.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await waitUntil(async () => {
      if (stack.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
      return output.includes('Replication service is up');
    }, 90000, 'the local stack');
  }, 120000);

  afterAll(async () => {
    if (stack && stack.exitCode === null) stack.kill('SIGKILL');
    await Promise.allSettled([control?.drop(), ...databases.map((database) => database.drop())]);
    await Promise.allSettled(['source', 'staging', 'warehouse'].map((suffix) => dropByName(`${livePrefix}_${suffix}`)));
    rmSync(workDir, { recursive: true, force: true });
  }, 30000);

  const embeddedS3Account = () => readS3Credentials(join(workDir, 's3-credentials.json'));
  const natsUrl = () => `nats://127.0.0.1:${natsPort}`;
  /** A role's seed, from the file npm start keeps it in (`set -a; .`-able, as compose's env files are). */
  const seedOf = (role: string) => /^NATS_NKEY_SEED=(\S+)$/m.exec(readFileSync(join(workDir, 'nats', 'keys', `${role}.env`), 'utf8'))?.[1] ?? '';

  function developmentKey(): { accessKeyId: string; secretKey: string } {
    const keyLine = /SVC_ACCESS_KEY_ID=(\S+) SVC_SECRET_ACCESS_KEY=(\S+)/.exec(output);
    return { accessKeyId: keyLine?.[1] ?? '', secretKey: keyLine?.[2] ?? '' };
  }

  it('creates the example replication with the CLI and the printed development key', () => {
    const keyLine = /SVC_ACCESS_KEY_ID=(\S+) SVC_SECRET_ACCESS_KEY=(\S+)/.exec(output);
    expect(keyLine).not.toBeNull();
    expect(output).toContain('The API is plain HTTP on 127.0.0.1 only, for development');
    expect(output).not.toContain('travel unencrypted');
    const [source, staging, warehouse] = databases.map((database) => database.name);
    const example = readFileSync(join(repoRoot, 'examples/create-replication.xml'), 'utf8')
      .replaceAll('svc_demo_source', source ?? '')
      .replaceAll('svc_demo_staging', staging ?? '')
      .replaceAll('svc_demo_warehouse', warehouse ?? '')
      .replace('EMBEDDED_S3_ACCESS_KEY_ID', embeddedS3Account().accessKeyId)
      .replace('EMBEDDED_S3_SECRET_ACCESS_KEY', embeddedS3Account().secretAccessKey);
    const file = join(workDir, 'create.xml');
    writeFileSync(file, example);

    const run = spawnSync(process.execPath, [join(repoRoot, 'dist/apps/cli/src/main.js'), 'create', '--file', file], {
      env: {
        ...process.env,
        SVC_ENDPOINT: `http://127.0.0.1:${port}`,
        SVC_ACCESS_KEY_ID: keyLine?.[1] ?? '',
        SVC_SECRET_ACCESS_KEY: keyLine?.[2] ?? '',
      },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // The XML example's answer, printed as JSON like every answer (issue 40).
    expect(JSON.parse(run.stdout)).toMatchObject({ replicationId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown, status: 'Running' });
  });

  it("creates the IAMRole example (examples/create-replication.json): the embedded server's STS lets the service assume the role with its ExternalId, and it seeds", async () => {
    const [source, staging, warehouse] = databases;
    await queryOnce(source?.url ?? '', 'CREATE TABLE public.iam_orders (id int PRIMARY KEY, total numeric(12,2)); INSERT INTO public.iam_orders VALUES (1, 1.5), (2, 3), (3, 4.5)');
    expect(output).toContain(`STS (IAMRole replications): the embedded S3 server also answers sts:AssumeRole`);
    const example = readFileSync(join(repoRoot, 'examples/create-replication.json'), 'utf8')
      .replaceAll('svc_demo_source', source?.name ?? '')
      .replaceAll('svc_demo_staging', staging?.name ?? '')
      .replaceAll('svc_demo_warehouse', warehouse?.name ?? '');
    expect(JSON.parse(example)).toMatchObject({ warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'svc-replication', bucketName: 'svc-demo' } });
    const file = join(workDir, 'create-iam-role.json');
    writeFileSync(file, example);

    const key = developmentKey();
    const run = spawnSync(process.execPath, [join(repoRoot, 'dist/apps/cli/src/main.js'), 'create', '--file', file], {
      env: { ...process.env, SVC_ENDPOINT: `http://127.0.0.1:${port}`, SVC_ACCESS_KEY_ID: key.accessKeyId, SVC_SECRET_ACCESS_KEY: key.secretKey },
      encoding: 'utf8',
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const externalId = new ExternalIdIssuer(parseMasterKey(DEVELOPMENT_MASTER_KEY)).issue({ ownerAccessKeyId: key.accessKeyId, accountId: '123456789012', roleName: 'svc-replication' });
    expect(JSON.parse(run.stdout)).toMatchObject({ replicationId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown, status: 'Running', warehouse: { externalId } });

    await waitUntil(
      async () => (await queryOnce(warehouse?.url ?? '', 'SELECT id FROM example_type2.iam_orders').catch(() => [])).length >= 3,
      90000,
      'the IAMRole replication to seed iam_orders',
    );

    // The same STS refuses another ExternalId, as the role's trust policy would.
    const sts = new STSClient({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', credentials: embeddedS3Account(), maxAttempts: 1 });
    try {
      const refused = await sts
        .send(new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::123456789012:role/svc-replication', RoleSessionName: 'e2e', ExternalId: 'svc-ffffffffffffffffffffffffffffffff' }))
        .then(() => 'assumed', (error: unknown) => (error instanceof Error ? error.name : String(error)));
      expect(refused).toBe('AccessDenied');
    } finally {
      sts.destroy();
    }
  }, 150000);

  it('runs the live demo on the development key: its replication seeds, then follows a change in its source every few seconds', async () => {
    const key = developmentKey();
    const call = async <T>(operation: string, body: Record<string, unknown>): Promise<T> => {
      const response = await callSigned(`http://127.0.0.1:${port}`, operation, 'json', JSON.stringify(body), key);
      if (response.status !== 200) throw new Error(`${operation} answered ${response.status}: ${response.body}`);
      return JSON.parse(response.body) as T;
    };
    let replicationId = '';
    await waitUntil(
      async () => {
        const { replications } = await call<{ replications: { replicationId: string; replicationName: string }[] }>('ListWarehouseReplications', {});
        replicationId = replications.find((replication) => replication.replicationName === `${livePrefix}_source (made by npm start)`)?.replicationId ?? '';
        return replicationId !== '';
      },
      60000,
      'the live demo replication',
    );
    const ordersApplied = async (): Promise<number> => {
      const history = await call<{ tables: { name: string; points: { cycles: number; rowsApplied: number }[] }[] }>('GetReplicationMetrics', { replicationId, tableName: '[public].[orders]' });
      return (history.tables[0]?.points ?? []).reduce((sum, point) => sum + point.rowsApplied, 0);
    };
    let seeded = 0;
    await waitUntil(async () => (seeded = await ordersApplied()) > 0, 90000, 'the demo orders to be seeded');
    // New live orders arrive in change cycles after the seed.
    await waitUntil(async () => (await ordersApplied()) > seeded, 60000, 'a live change to reach the warehouse');
    expect(output).toContain(`Demo replication ${replicationId} created from ${livePrefix}_source`);
  }, 180000);

  it("runs on this installation's own development key, kept in a file only the user can read (issue 36: its secret was public)", async () => {
    const keyFile = join(workDir, 'development-key.json');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const installationKey = readDevelopmentKey(keyFile);
    expect(developmentKey()).toEqual(installationKey);
    expect(installationKey.secretKey).not.toBe('local-development-secret-key-change-me');
    expect(output).toContain(`(this installation's own, kept in ${keyFile};`);
    // The secret the README once printed opens nothing.
    const publicSecret = { accessKeyId: 'SVCLOCALDEVELOPMENT', secretKey: 'local-development-secret-key-change-me' };
    expect((await callSigned(`http://127.0.0.1:${port}`, 'ListWarehouseReplications', 'json', '{}', publicSecret)).status).toBe(403);
  });

  it('keeps the embedded S3 server\'s credentials in a file only the user can read, and refuses anonymous requests', async () => {
    expect(statSync(join(workDir, 's3-credentials.json')).mode & 0o777).toBe(0o600);
    expect(output).toContain(`it accepts only requests signed with the access key in ${join(workDir, 's3-credentials.json')}`);
    expect(output).not.toContain(embeddedS3Account().secretAccessKey);
    const anonymous = await fetch(`http://127.0.0.1:${s3Port}/svc-demo?list-type=2`);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('runs the services on a nats-server of its own that refuses anonymous clients, each service on its own identity (issue 36)', async () => {
    expect(output).toContain(`NATS: npm start's own nats-server at ${natsUrl()} (JetStream in ${join(workDir, 'nats', 'store')})`);
    expect(output).not.toContain('NATS: no credentials and no TLS');
    const anonymous = await connect({ servers: natsUrl(), reconnect: false, timeout: 5000 }).then(
      async (connection) => {
        await connection.close();
        return 'connected';
      },
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(anonymous).toMatch(/authori[sz]ation violation/i);
    expect(statSync(join(workDir, 'nats', 'keys')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(workDir, 'nats', 'keys')).sort()).toEqual(BUS_ROLES.map((role) => `${role}.env`).sort());
    // Each service was given its own role's seed, and no other.
    const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const listing = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(stack.pid)], { encoding: 'utf8' }).stdout.split('\n');
    for (const service of ['job-registry', 'extractor', 'stager', 'loader', 'api-gateway']) {
      const pid = Number(listing.find((line) => line.includes(`apps/${service}/src/main.js`))?.trim().split(/\s+/)[0]);
      const seeds = environ(pid).filter((entry) => entry.startsWith('NATS_NKEY_SEED='));
      expect({ service, seeds }).toEqual({ service, seeds: [`NATS_NKEY_SEED=${seedOf(service)}`] });
    }
  });

  it("lets an operator manage keys over npm start's bus with the operator identity it keeps, as the README says, and nobody without it", () => {
    const overBus = (identityFile: string | null) =>
      spawnSync(
        'bash',
        ['-c', `${identityFile === null ? '' : 'set -a; . "$1"; set +a; '}exec "$2" "$3" keys list --over-bus --nats-url "$4"`, 'svc', identityFile ?? '', process.execPath, join(repoRoot, 'dist/apps/cli/src/main.js'), natsUrl()],
        { env: { PATH: process.env['PATH'] ?? '', HOME: workDir }, encoding: 'utf8', timeout: 30000 },
      );
    const asOperator = overBus(join(workDir, 'nats', 'keys', 'operator.env'));
    expect({ status: asOperator.status, stderr: asOperator.stderr }).toEqual({ status: 0, stderr: '' });
    expect(asOperator.stdout).toContain(`${developmentKey().accessKeyId} (bootstrap)`);
    expect(overBus(null).status).not.toBe(0);
    expect(overBus(join(workDir, 'nats', 'keys', 'api-gateway.env')).status).not.toBe(0);

    // With no server and no identity named, the CLI of this checkout finds npm start's bus and its operator by itself.
    const found = spawnSync(process.execPath, [join(repoRoot, 'dist/apps/cli/src/main.js'), 'keys', 'list', '--over-bus'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: workDir, LOCAL_STACK_STATE_FILE: join(workDir, 'local-stack.json') },
      encoding: 'utf8',
      timeout: 30000,
    });
    expect({ status: found.status, stderr: found.stderr }).toEqual({ status: 0, stderr: expect.stringContaining(`npm start's own bus at ${natsUrl()}`) as unknown });
    expect(found.stdout).toContain(`${developmentKey().accessKeyId} (bootstrap)`);
  }, 60000);

  it('serves paged listings from the embedded S3 server (s3rver needs the legacy OpenSSL provider in its own process)', async () => {
    const s3 = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials: embeddedS3Account() });
    try {
      await s3.send(new CreateBucketCommand({ Bucket: 'paging-check' }));
      for (const key of ['a', 'b', 'c']) await s3.send(new PutObjectCommand({ Bucket: 'paging-check', Key: key, Body: key }));
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: 'paging-check', MaxKeys: 1, ...(token !== undefined && { ContinuationToken: token }) }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
        token = page.NextContinuationToken;
      } while (token !== undefined);
      expect(keys).toEqual(['a', 'b', 'c']);
    } finally {
      s3.destroy();
    }
  });

  it('starts a service again when it crashes, as docker-compose restarts it', async () => {
    const stagerPid = (): number | null => {
      const listing = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(stack.pid)], { encoding: 'utf8' }).stdout;
      const line = listing.split('\n').find((entry) => entry.includes('apps/stager/src/main.js'));
      return line ? Number(line.trim().split(/\s+/)[0]) : null;
    };
    const crashed = stagerPid();
    expect(crashed).not.toBeNull();
    process.kill(crashed ?? 0, 'SIGKILL');

    await waitUntil(async () => output.includes('stager stopped unexpectedly (signal SIGKILL); restarting it in 1 s'), 10000, 'the restart notice');
    const connection = await connectNats(natsUrl(), 'e2e-local-stack', { security: { auth: { kind: 'nkey', seed: seedOf('operator') } }, role: 'operator' });
    try {
      const requester = new NatsRequester(connection, 1000);
      await waitUntil(async () => requester.request(healthSubject('stager'), {}).then(() => true), 30000, 'the restarted stager');
    } finally {
      await connection.close();
    }
    expect(stagerPid()).not.toBe(crashed);
    expect(stack.exitCode).toBeNull();
  }, 60000);

  it("lets svc in a new terminal find npm start's development key by itself, saying which it used (issue 20)", () => {
    const run = spawnSync(process.execPath, [join(repoRoot, 'dist/apps/cli/src/main.js'), 'list'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: workDir,
        SVC_SHARED_CREDENTIALS_FILE: join(workDir, 'no-credentials-here'),
        LOCAL_STACK_STATE_FILE: join(workDir, 'local-stack.json'),
      },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe(
      `svc: no credentials set; using the development access key ${developmentKey().accessKeyId} of the npm start running here (${join(workDir, 'local-stack.json')}, API http://127.0.0.1:${port})\n`,
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('replications');
    expect(statSync(join(workDir, 'local-stack.json')).mode & 0o077).toBe(0);
  });

  /** What `npm start` runs before it builds anything. */
  const alreadyRunningCheck = (apiPort: number) =>
    spawnSync(process.execPath, [join(repoRoot, 'tools/local-stack/bin/already-running.mjs')], {
      env: { ...process.env, LOCAL_STACK_STATE_FILE: join(workDir, 'local-stack.json'), PORT: String(apiPort) },
      encoding: 'utf8',
      timeout: 10000,
    });

  it('stops a second npm start before it rebuilds anything under the running one (issue 20)', async () => {
    const second = alreadyRunningCheck(await freePort());
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`npm start is already running (process ${stack.pid}, API at http://127.0.0.1:${port}`);
    expect(second.stderr).toContain('Use it, or stop it first (Ctrl-C in its terminal)');
  });

  it('has npm run demo use the running stack\'s build instead of rebuilding dist/ under it (issue 40)', () => {
    const demoBuild = spawnSync(process.execPath, [join(repoRoot, 'tools/local-stack/bin/build-unless-running.mjs')], {
      env: { ...process.env, LOCAL_STACK_STATE_FILE: join(workDir, 'local-stack.json') },
      encoding: 'utf8',
      timeout: 10000,
    });
    expect(demoBuild.status).toBe(0);
    expect(demoBuild.stderr).toContain(`npm start runs here (process ${stack.pid}): using its build of dist/ rather than rebuilding it under its services`);
  });

  it('stops every service on Ctrl-C', async () => {
    const exited = new Promise<number | null>((done) => stack.once('exit', (code) => done(code)));
    stack.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    await expect(connect({ servers: natsUrl(), reconnect: false, timeout: 2000 })).rejects.toThrow();
    // Stopped, it no longer holds a second npm start back.
    expect(alreadyRunningCheck(await freePort()).status).toBe(0);
  }, 30000);

  it('says which port is taken instead of an EADDRINUSE trace when something else listens on the API port', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((done) => blocker.once('listening', done));
    try {
      const taken = (blocker.address() as AddressInfo).port;
      const check = alreadyRunningCheck(taken);
      expect(check.status).toBe(1);
      expect(check.stderr).toContain(`Something already listens on 127.0.0.1:${taken}, the port npm start's API would take`);
    } finally {
      blocker.close();
    }
  });

  it('refuses a HOST other machines reach while on the development key, naming HOST, before making or starting anything (issue 36)', () => {
    const keyFile = join(workDir, 'exposed', 'development-key.json');
    const run = spawnSync(process.execPath, [join(repoRoot, 'dist/tools/local-stack/src/main.js')], {
      env: {
        ...process.env,
        NATS_URL: 'nats://127.0.0.1:1',
        HOST: '0.0.0.0',
        SVC_MASTER_KEY: '',
        SVC_BOOTSTRAP_ACCESS_KEY_ID: '',
        SVC_BOOTSTRAP_SECRET_KEY: '',
        DEVELOPMENT_KEY_FILE: keyFile,
        LOCAL_STACK_STATE_FILE: join(workDir, 'exposed', 'local-stack.json'),
      },
      encoding: 'utf8',
      timeout: 30000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("npm start failed: HOST is 0.0.0.0, not loopback: other machines would reach an API that npm start's development access key");
    expect(run.stderr).toContain('Unset HOST (or set it to 127.0.0.1)');
    expect(run.stderr).not.toContain('NATS is not answering');
    expect(existsSync(keyFile)).toBe(false);
  });

  it('stops, naming NATS_SERVER_BIN and how to install nats-server, when it cannot run its own bus; before making anything for it', () => {
    const busDir = join(workDir, 'no-binary', 'nats');
    const run = spawnSync(process.execPath, [join(repoRoot, 'dist/tools/local-stack/src/main.js')], {
      env: {
        ...process.env,
        NATS_URL: '',
        NATS_SERVER_BIN: join(workDir, 'no-binary', 'nats-server'),
        LOCAL_NATS_DIR: busDir,
        DEVELOPMENT_KEY_FILE: join(workDir, 'no-binary', 'development-key.json'),
        LOCAL_STACK_STATE_FILE: join(workDir, 'no-binary', 'local-stack.json'),
      },
      encoding: 'utf8',
      timeout: 30000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`npm start failed: NATS_SERVER_BIN is ${join(workDir, 'no-binary', 'nats-server')}, which is not an executable file`);
    expect(existsSync(busDir)).toBe(false);
    expect(existsSync(join(workDir, 'no-binary', 'development-key.json'))).toBe(false);
  });

  it('refuses an access key of the user own under the public development master key, before starting anything', () => {
    const run = spawnSync(process.execPath, [join(repoRoot, 'dist/tools/local-stack/src/main.js')], {
      env: {
        ...process.env,
        NATS_URL: 'nats://127.0.0.1:1',
        SVC_MASTER_KEY: '',
        SVC_BOOTSTRAP_ACCESS_KEY_ID: 'MYOWNKEY',
        SVC_BOOTSTRAP_SECRET_KEY: 'my-own-secret-0123456789abcdefghij',
      },
      encoding: 'utf8',
      timeout: 30000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm start failed: SVC_BOOTSTRAP_ACCESS_KEY_ID and SVC_BOOTSTRAP_SECRET_KEY are your own, but SVC_MASTER_KEY is not set');
    expect(run.stderr).toContain('set SVC_MASTER_KEY to a key of your own');
  });
});

async function queryOnce(url: string, sql: string): Promise<unknown[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function dropByName(name: string): Promise<void> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
