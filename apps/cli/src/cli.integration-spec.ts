import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SVC4_SCHEME, deriveSigningKey, verifyRequest } from '@svc/signing';
import { runCli, type CliIo } from './cli';
import { ExitCode } from './exit-codes';
import { sendOperation } from './http/send-operation';

const ACCESS_KEY_ID = 'AKCLITEST';
const SECRET_KEY = 'cli-test-secret-9f8e7d';
const REGION = 'us-east-1';
const REPLICATION_ID = '0c5e2f0e-8c4b-4a8e-9d51-0d8f5d1f0b7a';

interface ReceivedRequest {
  path: string;
  contentType: string | undefined;
  body: Buffer;
  verified: boolean;
}

/**
 * A stand-in for the API gateway: verifies the SVC4 signature with the real verifier and answers in the
 * request's format the way the API does (seed §4 and §7).
 */
class SignedApiServer {
  readonly received: ReceivedRequest[] = [];
  private describeAnswers: Array<{ status: number; body: unknown }> = [];
  private describeCalls = 0;
  private nextRequestId = 100;
  private readonly server: Server = createServer((request, response) => {
    this.handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });

  /** Successive JSON answers to DescribeWarehouseReplication, the last one repeated; none: the usual 400. */
  scriptDescribe(answers: Array<{ status: number; body: unknown }>): void {
    this.describeAnswers = answers;
    this.describeCalls = 0;
  }

  async start(): Promise<string> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((done, fail) => this.server.close((error) => (error ? fail(error) : done())));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = request.url ?? '';
    const contentType = request.headers['content-type'];
    const xml = contentType === 'application/xml';
    const requestId = this.nextRequestId++;

    const verification = await verifyRequest(
      SVC4_SCHEME,
      { method: request.method ?? '', path, headers: request.headers, body },
      async (accessKeyId, scope) => (accessKeyId === ACCESS_KEY_ID ? deriveSigningKey(SVC4_SCHEME, SECRET_KEY, scope) : null),
      { region: REGION, service: 'replication', now: new Date() },
    );
    this.received.push({ path, contentType, body, verified: verification.ok });
    if (!verification.ok) return this.sendError(response, 403, xml, requestId, [verification.failure.message]);

    if (path === '/api/DescribeWarehouseReplication' && this.describeAnswers.length > 0) {
      const answer = this.describeAnswers[Math.min(this.describeCalls++, this.describeAnswers.length - 1)];
      return this.send(response, answer.status, 'application/json', JSON.stringify(answer.body));
    }
    switch (path) {
      case '/api/CreateWarehouseReplication':
        return xml
          ? this.send(
              response,
              200,
              'application/xml',
              `<?xml version="1.0" encoding="UTF-8"?><CreateWarehouseReplicationResponse><ReplicationId>${REPLICATION_ID}</ReplicationId><Status>Running</Status><Note/></CreateWarehouseReplicationResponse>`,
            )
          : this.send(response, 200, 'application/json', JSON.stringify({ replicationId: REPLICATION_ID, status: 'Running', note: '' }));
      case '/api/AlterWarehouseReplication':
        return this.send(response, 200, contentType ?? 'application/json', '');
      default:
        return this.sendError(response, 400, xml, requestId, [
          "{Warehouse\\BucketName}: invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'",
          '{ReplicationId}: must be a GUID',
        ]);
    }
  }

  private sendError(response: ServerResponse, status: number, xml: boolean, requestId: number, messages: string[]): void {
    if (!xml) return this.send(response, status, 'application/json', JSON.stringify({ errors: messages, requestId }));
    const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const errors = messages.map((message) => `<Error><Message>${escape(message)}</Message></Error>`).join('');
    this.send(response, status, 'application/xml', `<?xml version="1.0" encoding="UTF-8"?><ErrorResponse><RequestId>${requestId}</RequestId><Errors>${errors}</Errors></ErrorResponse>`);
  }

  private send(response: ServerResponse, status: number, contentType: string, body: string): void {
    response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) }).end(body);
  }
}

interface CapturedRun {
  exitCode: ExitCode;
  stdout: string;
  stderr: string;
}

async function runCapturing(argv: string[], env: CliIo['env']): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const exitCode = await runCli(argv, {
    env,
    homeDir: '/nonexistent-home',
    readFile: (path) => readFile(path),
    writeStdout: (chunk) => {
      stdout += chunk.toString();
    },
    writeStderr: (text) => {
      stderr += text;
    },
    send: sendOperation,
    openRegistry: () => Promise.reject(new Error('not used here')),
    terminal: { isTty: false, columns: () => undefined, rows: () => undefined },
    now: () => new Date(),
    sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
    onInterrupt: () => () => undefined,
  });
  // Only `svc keys create` may ever print a secret key.
  expect(stdout + stderr).not.toContain(SECRET_KEY);
  return { exitCode, stdout, stderr };
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('svc against a signature-verifying HTTP server', () => {
  const api = new SignedApiServer();
  let endpoint: string;
  let workDir: string;
  let env: CliIo['env'];

  beforeAll(async () => {
    endpoint = await api.start();
    workDir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
    env = { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_KEY, endpoint };
  });

  afterAll(async () => {
    await api.stop();
    await rm(workDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    api.received.length = 0;
    api.scriptDescribe([]);
  });

  it('sendOperation signs a request the server verifies and returns its answer', async () => {
    const body = Buffer.from('{"parallelTablesLimit":"10"}');
    const outcome = await sendOperation({
      endpoint,
      region: REGION,
      credentials: { accessKeyId: ACCESS_KEY_ID, secretKey: SECRET_KEY },
      operation: 'CreateWarehouseReplication',
      contentType: 'application/json',
      body,
    });
    expect(outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(api.received).toEqual([{ path: '/api/CreateWarehouseReplication', contentType: 'application/json', body, verified: true }]);
  });

  it('sends a JSON file byte for byte and pretty-prints the JSON answer', async () => {
    const file = join(workDir, 'create.json');
    const content = '{ "parallelTablesLimit": "10",\n  "source": { "connectionString": "Server=s;Password=p@ss" } }\n';
    await writeFile(file, content);
    const run = await runCapturing(['create', '--file', file], env);
    expect(run).toEqual({
      exitCode: ExitCode.Ok,
      stdout: `{\n  "replicationId": "${REPLICATION_ID}",\n  "status": "Running",\n  "note": ""\n}\n`,
      stderr: '',
    });
    expect(api.received).toHaveLength(1);
    expect(api.received[0]?.verified).toBe(true);
    expect(api.received[0]?.body.toString()).toBe(content);
  });

  it('infers the operation from an XML file and prints the answer as JSON, as for every call (issue 40); --raw prints it exactly', async () => {
    const file = join(workDir, 'create.xml');
    await writeFile(file, '<?xml version="1.0" encoding="UTF-8"?>\n<CreateWarehouseReplicationRequest><ParallelTablesLimit>10</ParallelTablesLimit></CreateWarehouseReplicationRequest>');
    const run = await runCapturing(['--file', file], env);
    expect(run.exitCode).toBe(ExitCode.Ok);
    expect(JSON.parse(run.stdout)).toEqual({ replicationId: REPLICATION_ID, status: 'Running', note: '' });
    expect(api.received[0]).toMatchObject({ path: '/api/CreateWarehouseReplication', contentType: 'application/xml', verified: true });

    const raw = await runCapturing(['--file', file, '--raw'], env);
    expect(raw.stdout).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><CreateWarehouseReplicationResponse><ReplicationId>${REPLICATION_ID}</ReplicationId><Status>Running</Status><Note/></CreateWarehouseReplicationResponse>`,
    );
  });

  it('builds an Alter body from --set and prints an empty 200 as OK', async () => {
    const run = await runCapturing(['alter', '--replication-id', REPLICATION_ID, '--set', 'Warehouse.BucketName=new-bucket', '--format', 'xml'], env);
    expect(run).toEqual({ exitCode: ExitCode.Ok, stdout: 'OK (HTTP 200)\n', stderr: '' });
    expect(api.received[0]).toMatchObject({ path: '/api/AlterWarehouseReplication', contentType: 'application/xml', verified: true });
    expect(api.received[0]?.body.toString()).toContain('<Warehouse>\n    <BucketName>new-bucket</BucketName>\n  </Warehouse>');
  });

  it('reports a 400 XML ErrorResponse on stderr with exit code 1', async () => {
    const run = await runCapturing(['describe', '--replication-id', 'not-a-guid', '--format', 'xml'], env);
    expect(run.exitCode).toBe(ExitCode.Failed);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^Error: HTTP 400 \(request \d+\)\n/);
    expect(run.stderr.split('\n').slice(1)).toEqual([
      "  - {Warehouse\\BucketName}: invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'",
      '  - {ReplicationId}: must be a GUID',
      '',
    ]);
  });

  it('reports a 400 JSON error body on stderr with exit code 1', async () => {
    const run = await runCapturing(['DescribeWarehouseReplication', '--body', '{"replicationId":"not-a-guid"}'], env);
    expect(run.exitCode).toBe(ExitCode.Failed);
    expect(run.stderr).toMatch(/^Error: HTTP 400 \(request \d+\)\n {2}- \{Warehouse\\BucketName\}: invalid value 'x y'.*\n {2}- \{ReplicationId\}: must be a GUID\n$/);
    expect(api.received[0]?.verified).toBe(true);
  });

  it('is refused when the secret is wrong, so the server really checks the signature', async () => {
    const run = await runCapturing(['list'], { ...env, secretAccessKey: 'wrong-secret' });
    expect(run.exitCode).toBe(ExitCode.Failed);
    expect(run.stderr).toMatch(/^Error: HTTP 403 \(request \d+\)\n {2}- the request signature does not match/);
    expect(api.received[0]?.verified).toBe(false);
  });

  it('takes credentials, endpoint and region from a profile in the credentials file', async () => {
    const credentialsFile = join(workDir, 'credentials');
    await writeFile(
      credentialsFile,
      `[default]\nsvc_access_key_id = AKOTHER\nsvc_secret_access_key = other\n\n[test]\nsvc_access_key_id = ${ACCESS_KEY_ID}\nsvc_secret_access_key = ${SECRET_KEY}\nendpoint = ${endpoint}\nregion = ${REGION}\n`,
    );
    const run = await runCapturing(['alter', '--replication-id', REPLICATION_ID, '--profile', 'test'], { credentialsFile });
    expect(run).toEqual({ exitCode: ExitCode.Ok, stdout: 'OK (HTTP 200)\n', stderr: '' });
    expect(api.received[0]?.verified).toBe(true);
  });

  it('describe --watch polls the signed Describe through a 503 until every table is tracking, escaping a hostile table name', async () => {
    const hostile = '[public].[\u001B[2Jevil\u0007]';
    const description = (phase: string, rowsSeeded: number) => ({
      replicationId: REPLICATION_ID,
      replicationName: 'orders',
      status: 'Running',
      tables: [
        { name: '[public].[orders]', phase, rowsSeeded, rowsEstimated: 1000, inFlightSeconds: 10, lagSeconds: 1 },
        { name: hostile, phase: 'Tracking', rowsSeeded: 5, rowsEstimated: 5, lagSeconds: 2 },
      ],
      alerts: [],
    });
    api.scriptDescribe([
      { status: 200, body: description('Seeding', 250) },
      { status: 503, body: { errors: ['the registry is not answering'], requestId: 42 } },
      { status: 200, body: description('Tracking', 1000) },
    ]);
    const run = await runCapturing(['describe', '--replication-id', REPLICATION_ID, '--watch', '--until-tracking', '--interval', '0.5'], env);
    expect(run.exitCode).toBe(ExitCode.Ok);
    expect(run.stderr).toBe('');
    expect(api.received.map((request) => [request.path, request.verified])).toEqual(Array(3).fill(['/api/DescribeWarehouseReplication', true]));
    expect(api.received[0]?.body.toString()).toBe(`{"replicationId":"${REPLICATION_ID}"}`);
    const frames = run.stdout.split('\n\n');
    expect(frames).toHaveLength(3);
    expect(frames[0]).toContain('[public].[orders]           Seeding    [#######-----------------------] 25%  250/1,000 rows  25 rows/s  ETA 30s');
    expect(frames[1]).toContain('! HTTP 503 (request 42): the registry is not answering; trying again every 0.5 s');
    expect(frames[2]).toContain('[public].[orders]           Tracking   lag 1s');
    expect(run.stdout).toContain('[public].[\\x1B[2Jevil\\x07]  Tracking   lag 2s');
    expect(run.stdout).not.toContain('\u001B');
    expect(run.stdout).toMatch(/Every table is tracking \(2 tables\)\.\n$/);
  });

  it('describe --watch ends on a 404 with the error report and exit 1', async () => {
    api.scriptDescribe([{ status: 404, body: { errors: [`no replication ${REPLICATION_ID}`], requestId: 43 } }]);
    const run = await runCapturing(['describe', '--replication-id', REPLICATION_ID, '--watch'], env);
    expect(run).toEqual({ exitCode: ExitCode.Failed, stdout: '', stderr: `Error: HTTP 404 (request 43)\n  - no replication ${REPLICATION_ID}\n` });
  });

  it('exits 2 with "connection refused" when nothing listens', async () => {
    const port = await unusedPort();
    const run = await runCapturing(['list', '--endpoint', `http://127.0.0.1:${port}`], env);
    expect(run).toEqual({ exitCode: ExitCode.Unreachable, stdout: '', stderr: `Error: cannot reach http://127.0.0.1:${port}: connection refused\n` });
  });

  // `npm run build` output; SVC_CLI_MAIN may point at another build of main.js.
  const builtCli = process.env['SVC_CLI_MAIN'] ?? resolve(__dirname, '../../../dist/apps/cli/src/main.js');
  (existsSync(builtCli) ? it : it.skip)('the built svc binary gives the same results as a child process', async () => {
    const run = (argv: string[], childEnv: Record<string, string>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        execFile(process.execPath, [builtCli, ...argv], { env: { PATH: process.env['PATH'] ?? '', HOME: workDir, ...childEnv } }, (error, stdout, stderr) =>
          done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
        );
      });
    const credentials = { SVC_ACCESS_KEY_ID: ACCESS_KEY_ID, SVC_SECRET_ACCESS_KEY: SECRET_KEY };

    const ok = await run(['create', '--body', '{"parallelTablesLimit":"10"}'], { ...credentials, SVC_ENDPOINT: endpoint });
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(ok.stdout)).toEqual({ replicationId: REPLICATION_ID, status: 'Running', note: '' });

    const rejected = await run(['describe', '--replication-id', 'x', '--format', 'xml'], { ...credentials, SVC_ENDPOINT: endpoint });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('  - {ReplicationId}: must be a GUID\n');

    const port = await unusedPort();
    const refused = await run(['list'], { ...credentials, SVC_ENDPOINT: `http://127.0.0.1:${port}` });
    expect(refused).toEqual({ code: 2, stdout: '', stderr: `Error: cannot reach http://127.0.0.1:${port}: connection refused\n` });

    const noCredentials = await run(['list'], { SVC_ENDPOINT: endpoint });
    expect(noCredentials.code).toBe(78);
    expect(noCredentials.stderr).toContain('SVC_ACCESS_KEY_ID');

    const usage = await run(['bogus'], {});
    expect(usage.code).toBe(64);
  });

  (existsSync(builtCli) ? it : it.skip)('the built svc binary watches through a pipe without escape sequences, and Ctrl-C ends it with 130', async () => {
    const childEnv = { PATH: process.env['PATH'] ?? '', HOME: workDir, SVC_ACCESS_KEY_ID: ACCESS_KEY_ID, SVC_SECRET_ACCESS_KEY: SECRET_KEY, SVC_ENDPOINT: endpoint };
    // With `interrupt`, Ctrl-C goes once the first frame is out: by then the watch listens for it.
    const watch = (interrupt = false) =>
      new Promise<{ code: number | null; stdout: string }>((done) => {
        const untilTracking = interrupt ? [] : ['--until-tracking'];
        const child = spawn(process.execPath, [builtCli, 'describe', '--replication-id', REPLICATION_ID, '--watch', ...untilTracking, '--interval', '0.5'], { env: childEnv });
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          const firstFrame = stdout === '';
          stdout += chunk.toString();
          if (interrupt && firstFrame) child.kill('SIGINT');
        });
        child.on('close', (code) => done({ code, stdout }));
      });
    const seeding = { replicationId: REPLICATION_ID, replicationName: 'orders', status: 'Running', tables: [{ name: '[public].[orders]', phase: 'Seeding', rowsEstimated: 10 }] };
    const tracking = { ...seeding, tables: [{ name: '[public].[orders]', phase: 'Tracking', lagSeconds: 1 }] };

    api.scriptDescribe([{ status: 200, body: seeding }, { status: 200, body: tracking }]);
    const done = await watch();
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('[public].[orders]  Seeding    [------------------------------] 0%  0/10 rows\n');
    expect(done.stdout).toMatch(/Every table is tracking \(1 table\)\.\n$/);
    expect(done.stdout).not.toContain('\u001B');

    api.scriptDescribe([{ status: 200, body: seeding }]);
    const interrupted = await watch(true);
    expect(interrupted.code).toBe(ExitCode.Interrupted);
    expect(interrupted.stdout).toContain('Seeding');
  });
});
