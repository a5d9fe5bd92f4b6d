import { rpcOk } from '@svc/contracts';
import { runCli, type CliIo } from './cli';
import { ExitCode } from './exit-codes';
import type { SendOperationInput, SendOutcome } from './http/send-operation';
import type { AccessKeyRequester } from './keys/create-access-key';
import { NatsSettingsError } from './keys/registry-connection';
import type { KeyLifecycleRequester } from './keys/manage-access-keys';

interface FakeIo extends CliIo {
  stdout: string;
  stderr: string;
  sent: SendOperationInput[];
  registryUrls: string[];
  /** The operator seed each registry connection was given (npm start's own bus). */
  registrySeeds: (string | undefined)[];
  closed: number;
}

interface FakeIoOptions {
  files?: Record<string, string>;
  /** Answers to successive calls; the last one repeats. */
  outcomes?: SendOutcome[];
  outcome?: SendOutcome;
  env?: CliIo['env'];
  requester?: AccessKeyRequester | (AccessKeyRequester & KeyLifecycleRequester);
}

function fakeIo(options: FakeIoOptions = {}): FakeIo {
  const outcomes = options.outcomes ?? (options.outcome === undefined ? [] : [options.outcome]);
  const io: FakeIo = {
    stdout: '',
    stderr: '',
    sent: [],
    registryUrls: [],
    registrySeeds: [],
    closed: 0,
    env: options.env ?? { accessKeyId: 'AKENV', secretAccessKey: 'env-secret' },
    homeDir: '/home/ada',
    readFile: async (path) => {
      const text = options.files?.[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return Buffer.from(text);
    },
    writeStdout: (chunk) => {
      io.stdout += chunk.toString();
    },
    writeStderr: (text) => {
      io.stderr += text;
    },
    send: async (input) => {
      io.sent.push(input);
      return outcomes[Math.min(io.sent.length, outcomes.length) - 1] ?? { kind: 'response', status: 200, headers: {}, body: Buffer.alloc(0) };
    },
    openRegistry: async (url, operatorSeed) => {
      io.registryUrls.push(url);
      io.registrySeeds.push(operatorSeed);
      if (options.requester === undefined) throw Object.assign(new Error('CONNECTION_REFUSED'), { code: 'CONNECTION_REFUSED' });
      return {
        requester: options.requester as AccessKeyRequester & KeyLifecycleRequester,
        close: async () => {
          io.closed++;
        },
      };
    },
    terminal: { isTty: false, columns: () => undefined, rows: () => undefined },
    now: () => new Date('2026-11-23T10:15:00Z'),
    sleep: async () => undefined,
    onInterrupt: () => () => undefined,
  };
  return io;
}

describe('runCli', () => {
  it('prints usage to stdout for --help', async () => {
    const io = fakeIo();
    await expect(runCli(['--help'], io)).resolves.toBe(ExitCode.Ok);
    expect(io.stdout).toContain('Usage:');
    expect(io.stdout).toContain('stop-service         StopReplicationService');
  });

  it('answers a usage error with the message and usage on stderr, exit 64', async () => {
    const io = fakeIo();
    await expect(runCli(['nonsense'], io)).resolves.toBe(ExitCode.Usage);
    expect(io.stderr).toMatch(/^svc: unknown operation 'nonsense'\n\nUsage:/);
    expect(io.sent).toHaveLength(0);
  });

  it('sends the built body with the resolved settings and prints an empty 200 as OK', async () => {
    const io = fakeIo();
    await expect(runCli(['describe', '--replication-id', 'r-1', '--region', 'eu-west-1'], io)).resolves.toBe(ExitCode.Ok);
    expect(io.stdout).toBe('OK (HTTP 200)\n');
    expect(io.sent).toHaveLength(1);
    const [sent] = io.sent;
    expect(sent).toMatchObject({
      operation: 'DescribeWarehouseReplication',
      contentType: 'application/json',
      endpoint: 'http://127.0.0.1:8080',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKENV', secretKey: 'env-secret' },
    });
    expect(sent?.body.toString()).toBe('{"replicationId":"r-1"}');
  });

  it('svc validate and svc validation send the replication after the operation and their flags as fields', async () => {
    const io = fakeIo();
    await expect(runCli(['validate', 'r-1', '--tables', '[dbo].[Orders], [dbo].[Lines]'], io)).resolves.toBe(ExitCode.Ok);
    await expect(runCli(['validation', 'r-1', '--validation-id', 'v-1', '--format', 'xml'], io)).resolves.toBe(ExitCode.Ok);
    expect(io.sent.map((sent) => [sent.operation, sent.body.toString()])).toEqual([
      ['StartReplicationValidation', '{"replicationId":"r-1","tablesToInclude":"[dbo].[Orders], [dbo].[Lines]"}'],
      [
        'DescribeReplicationValidation',
        '<?xml version="1.0" encoding="UTF-8"?>\n<DescribeReplicationValidationRequest>\n  <ReplicationId>r-1</ReplicationId>\n  <ValidationId>v-1</ValidationId>\n</DescribeReplicationValidationRequest>\n',
      ],
    ]);
  });

  it('svc repair sends the replication after the operation, --validation-id and --tables as fields', async () => {
    const io = fakeIo();
    await expect(runCli(['repair', 'r-1', '--validation-id', 'v-1', '--tables', '[dbo].[Orders]'], io)).resolves.toBe(ExitCode.Ok);
    await expect(runCli(['repair', 'r-1', '--validation-id', 'v-1', '--format', 'xml'], io)).resolves.toBe(ExitCode.Ok);
    expect(io.sent.map((sent) => [sent.operation, sent.body.toString()])).toEqual([
      ['RepairReplication', '{"replicationId":"r-1","validationId":"v-1","tablesToInclude":"[dbo].[Orders]"}'],
      [
        'RepairReplication',
        '<?xml version="1.0" encoding="UTF-8"?>\n<RepairReplicationRequest>\n  <ReplicationId>r-1</ReplicationId>\n  <ValidationId>v-1</ValidationId>\n</RepairReplicationRequest>\n',
      ],
    ]);
  });

  it('exits 2 with the network message when the server cannot be reached', async () => {
    const io = fakeIo({ outcome: { kind: 'unreachable', message: 'cannot reach http://127.0.0.1:8080: connection refused' } });
    await expect(runCli(['list'], io)).resolves.toBe(ExitCode.Unreachable);
    expect(io.stderr).toBe('Error: cannot reach http://127.0.0.1:8080: connection refused\n');
  });

  it('exits 66 for a --file it cannot read', async () => {
    const io = fakeIo();
    await expect(runCli(['create', '--file', 'missing.json'], io)).resolves.toBe(ExitCode.NoInput);
    expect(io.stderr).toBe('Error: cannot read missing.json: no such file\n');
  });

  it('exits 78 naming the variables and the file when there are no credentials, printing no secret', async () => {
    const io = fakeIo({ env: {} });
    await expect(runCli(['list'], io)).resolves.toBe(ExitCode.Configuration);
    expect(io.stderr).toContain('SVC_ACCESS_KEY_ID and SVC_SECRET_ACCESS_KEY');
    expect(io.stderr).toContain('/home/ada/.svc/credentials');
  });

  it('reads credentials from the profile file', async () => {
    const io = fakeIo({
      env: { credentialsFile: '/etc/svc' },
      files: { '/etc/svc': '[default]\nsvc_access_key_id=AKFILE\nsvc_secret_access_key=file-secret\nendpoint=https://gw:9000\n' },
    });
    await expect(runCli(['list'], io)).resolves.toBe(ExitCode.Ok);
    expect(io.sent[0]).toMatchObject({ endpoint: 'https://gw:9000', credentials: { accessKeyId: 'AKFILE', secretKey: 'file-secret' } });
    expect(io.stdout + io.stderr).not.toContain('file-secret');
  });

  describe('plain HTTP beyond loopback', () => {
    const remote = { accessKeyId: 'AKENV', secretAccessKey: 'env-secret', endpoint: 'http://10.0.0.5:8080' };

    it.each([
      ['create', '--body', '{"source":{"password":"pw"}}'],
      ['list'],
      ['describe', '--replication-id', 'r-1', '--watch'],
    ])('refuses %s before sending anything, exit 78, naming the endpoint and the ways out', async (...argv) => {
      const io = fakeIo({ env: remote });
      await expect(runCli(argv, io)).resolves.toBe(ExitCode.Configuration);
      expect(io.sent).toHaveLength(0);
      expect(io.stderr).toMatch(/^Error: refusing to send a signed request over plain HTTP to http:\/\/10\.0\.0\.5:8080: /);
      expect(io.stderr).toContain('Use an https:// endpoint, or pass --insecure');
    });

    it('sends with --insecure', async () => {
      const io = fakeIo({ env: remote });
      await expect(runCli(['list', '--insecure'], io)).resolves.toBe(ExitCode.Ok);
      expect(io.sent[0]).toMatchObject({ endpoint: 'http://10.0.0.5:8080' });
    });

    it('sends to an https endpoint, and to loopback over HTTP', async () => {
      for (const endpoint of ['https://10.0.0.5:8443', 'http://localhost:8080']) {
        const io = fakeIo({ env: { ...remote, endpoint } });
        await expect(runCli(['list'], io)).resolves.toBe(ExitCode.Ok);
        expect(io.sent[0]).toMatchObject({ endpoint });
      }
    });
  });

  describe('CA file', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const env = { accessKeyId: 'AKENV', secretAccessKey: 'env-secret', endpoint: 'https://gw.internal:8443' };

    it('hands --ca-file, else SVC_CA_FILE, to every call', async () => {
      const fromFlag = fakeIo({ env: { ...env, caFile: '/etc/env-ca.pem' }, files: { '/etc/flag-ca.pem': pem } });
      await expect(runCli(['list', '--ca-file', '/etc/flag-ca.pem'], fromFlag)).resolves.toBe(ExitCode.Ok);
      expect(fromFlag.sent[0]?.ca?.toString()).toBe(pem);

      const fromEnv = fakeIo({ env: { ...env, caFile: '/etc/env-ca.pem' }, files: { '/etc/env-ca.pem': pem } });
      // The fake's empty answer ends the watch at once; what matters is what its call carried.
      await runCli(['describe', '--replication-id', 'r-1', '--watch', '--until-tracking'], fromEnv);
      expect(fromEnv.sent[0]?.ca?.toString()).toBe(pem);
    });

    it('exits 78 for a CA file that is missing or holds no certificate, sending nothing', async () => {
      const missing = fakeIo({ env: { ...env, caFile: '/etc/none.pem' } });
      await expect(runCli(['list'], missing)).resolves.toBe(ExitCode.Configuration);
      expect(missing.stderr).toBe('Error: cannot read the CA file /etc/none.pem (SVC_CA_FILE): no such file\n');
      const notPem = fakeIo({ env, files: { '/etc/key.pem': '-----BEGIN PRIVATE KEY-----\n' } });
      await expect(runCli(['list', '--ca-file', '/etc/key.pem'], notPem)).resolves.toBe(ExitCode.Configuration);
      expect(notPem.stderr).toBe('Error: the CA file /etc/key.pem (--ca-file) holds no PEM certificate\n');
      expect([...missing.sent, ...notPem.sent]).toHaveLength(0);
    });
  });

  it('keys create: asks the registry at --nats-url, prints the new key once and closes the connection', async () => {
    const requester: AccessKeyRequester = {
      request: async (_subject, payload) => rpcOk({ accessKeyId: 'AKNEW', secretKey: 'new-secret', allowedOperations: payload.allowedOperations, replicationScope: payload.replicationScope ?? 'Own' }),
    };
    const io = fakeIo({ requester, env: { natsUrl: 'nats://env:4222' } });
    await expect(runCli(['keys', 'create', '--operations', 'list,describe', '--nats-url', 'nats://flag:4222'], io)).resolves.toBe(ExitCode.Ok);
    expect(io.registryUrls).toEqual(['nats://flag:4222']);
    expect(io.stdout).toContain('Access key created for: ListWarehouseReplications, DescribeWarehouseReplication');
    expect(io.stdout).toContain('svc_access_key_id = AKNEW\nsvc_secret_access_key = new-secret\n');
    expect(io.closed).toBe(1);
  });

  it('keys create: NATS_URL is the fallback, and an unreachable server exits 2 without its password', async () => {
    const io = fakeIo({ env: { natsUrl: 'nats://user:pw-in-url@127.0.0.1:1' } });
    await expect(runCli(['keys', 'create', '--operations', '*', '--over-bus'], io)).resolves.toBe(ExitCode.Unreachable);
    expect(io.registryUrls).toEqual(['nats://user:pw-in-url@127.0.0.1:1']);
    expect(io.stderr).toBe('Error: cannot reach nats://127.0.0.1:1: connection refused\n');
  });

  it("keys --over-bus without a server named: npm start's own bus of this checkout, as its operator", async () => {
    const seed = `SU${'A'.repeat(56)}`;
    const files = {
      '/repo/tmp/local-stack.json': JSON.stringify({ pid: 1, api: 'http://127.0.0.1:8080', bus: { natsUrl: 'nats://127.0.0.1:4322', operatorSeedFile: '/repo/tmp/nats/keys/operator.env' } }),
      '/repo/tmp/nats/keys/operator.env': `# NATS identity of the operator role\nNATS_NKEY_SEED=${seed}\n`,
    };
    const io = fakeIo({ files, env: {} });
    io.runningStackFile = '/repo/tmp/local-stack.json';
    await expect(runCli(['keys', 'create', '--operations', '*', '--over-bus'], io)).resolves.toBe(ExitCode.Unreachable);
    expect(io.registryUrls).toEqual(['nats://127.0.0.1:4322']);
    expect(io.registrySeeds).toEqual([seed]);
    expect(io.stderr).toContain("npm start's own bus at nats://127.0.0.1:4322");
    expect(io.stderr).not.toContain(seed);

    // A server named by the user is the user's: no record is read, no seed given.
    const named = fakeIo({ files, env: { natsUrl: 'nats://mine:4222' } });
    named.runningStackFile = '/repo/tmp/local-stack.json';
    await runCli(['keys', 'create', '--operations', '*', '--over-bus'], named);
    expect([named.registryUrls, named.registrySeeds]).toEqual([['nats://mine:4222'], [undefined]]);
  });

  it('keys create: NATS settings that cannot be used exit 78 with the problems, never a value', async () => {
    const io = fakeIo({ env: { natsUrl: 'tls://nats:4222' } });
    io.openRegistry = () => Promise.reject(new NatsSettingsError(['NATS_CA_FILE: cannot read the file (ENOENT)']));
    await expect(runCli(['keys', 'create', '--operations', '*', '--over-bus'], io)).resolves.toBe(ExitCode.Configuration);
    expect(io.stderr).toBe('Error: NATS settings: NATS_CA_FILE: cannot read the file (ENOENT)\n');
  });

  it('keys rotate and list: asks the registry, prints the new secret once and the keys without secrets', async () => {
    const asked: unknown[] = [];
    const requester = {
      request: async (_subject: string, payload: { action?: string }) => {
        asked.push(payload);
        if (payload.action === 'Rotate') return rpcOk({ secretKey: 'rotated-secret', previousSecretValidUntil: '2026-11-26T12:00:00.000Z' });
        return rpcOk({
          accessKeys: [
            { accessKeyId: 'AKONE', allowedOperations: ['*'], replicationScope: 'All', description: 'ops', bootstrap: true, status: 'Active', createdAt: 'x', expiresAt: null, previousSecretValidUntil: null },
          ],
        });
      },
    } as unknown as AccessKeyRequester & KeyLifecycleRequester;
    const rotate = fakeIo({ requester, env: {} });
    await expect(runCli(['keys', 'rotate', '--access-key-id', 'AKONE', '--overlap-minutes', '15', '--over-bus'], rotate)).resolves.toBe(ExitCode.Ok);
    expect(asked[0]).toEqual({ action: 'Rotate', accessKeyId: 'AKONE', overlapMinutes: 15 });
    expect(rotate.stdout).toContain('svc_secret_access_key = rotated-secret');
    expect(rotate.stdout).toContain('still signs until 2026-11-26T12:00:00.000Z');
    const list = fakeIo({ requester, env: {} });
    await expect(runCli(['keys', 'list', '--over-bus'], list)).resolves.toBe(ExitCode.Ok);
    expect(list.stdout).toMatch(/AKONE \(bootstrap\)\s+Active\s+All\s+\*\s+never\s+ops/);
    await expect(runCli(['keys', 'disable'], fakeIo({ requester, env: {} }))).resolves.toBe(ExitCode.Usage);
  });

  describe('keys over the signed API (the default)', () => {
    const answer = (status: number, body: unknown) => ({
      kind: 'response' as const,
      status,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(body === null ? '' : JSON.stringify(body)),
    });

    it('create signs CreateAccessKey with the user credentials and prints the secret once; nothing goes to the bus', async () => {
      const io = fakeIo({ outcome: answer(200, { accessKeyId: 'AKAPI', secretAccessKey: 'api-secret', allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own' }) });
      await expect(runCli(['keys', 'create', '--operations', 'list', '--expires-at', '2027-01-31T00:00:00Z'], io)).resolves.toBe(ExitCode.Ok);
      expect(io.sent[0]).toMatchObject({ operation: 'CreateAccessKey', contentType: 'application/json', credentials: { accessKeyId: 'AKENV' } });
      expect(JSON.parse(io.sent[0]?.body.toString() ?? '')).toEqual({ allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own', expiresAt: '2027-01-31T00:00:00.000Z' });
      expect(io.stdout).toContain('svc_access_key_id = AKAPI\nsvc_secret_access_key = api-secret\n');
      expect(io.registryUrls).toEqual([]);
    });

    it.each([
      [['keys', 'disable', '--access-key-id', 'AK'], 'UpdateAccessKey', { accessKeyId: 'AK', status: 'Disabled' }],
      [['keys', 'enable', '--access-key-id', 'AK'], 'UpdateAccessKey', { accessKeyId: 'AK', status: 'Enabled' }],
      [['keys', 'expire', '--access-key-id', 'AK', '--at', 'never'], 'UpdateAccessKey', { accessKeyId: 'AK', expiresAt: 'Never' }],
      [['keys', 'delete', '--access-key-id', 'AK'], 'DeleteAccessKey', { accessKeyId: 'AK' }],
    ])('%j calls %s', async (argv, operation, body) => {
      const io = fakeIo({ outcome: answer(200, null) });
      await expect(runCli(argv, io)).resolves.toBe(ExitCode.Ok);
      expect(io.sent[0]?.operation).toBe(operation);
      expect(JSON.parse(io.sent[0]?.body.toString() ?? '')).toEqual(body);
    });

    it('rotate prints the new secret once; list prints the table', async () => {
      const rotate = fakeIo({ outcome: answer(200, { accessKeyId: 'AK', secretAccessKey: 'rotated-api-secret', previousSecretValidUntil: '2026-11-26T12:00:00.000Z' }) });
      await expect(runCli(['keys', 'rotate', '--access-key-id', 'AK', '--overlap-minutes', '0'], rotate)).resolves.toBe(ExitCode.Ok);
      expect(JSON.parse(rotate.sent[0]?.body.toString() ?? '')).toEqual({ accessKeyId: 'AK', overlapMinutes: 0 });
      expect(rotate.stdout).toContain('svc_secret_access_key = rotated-api-secret');
      const listed = { accessKeyId: 'AKTEAM', allowedOperations: ['ListAccessKeys'], replicationScope: 'Own', description: 'team', bootstrap: false, status: 'Disabled', createdAt: 'x', createdBy: 'AKADMIN', expiresAt: null, previousSecretValidUntil: null };
      const list = fakeIo({ outcome: answer(200, { accessKeys: [listed] }) });
      await expect(runCli(['keys', 'list'], list)).resolves.toBe(ExitCode.Ok);
      expect(list.sent[0]?.operation).toBe('ListAccessKeys');
      expect(list.stdout).toMatch(/AKTEAM\s+Disabled\s+Own\s+ListAccessKeys\s+never\s+team/);
    });

    it('a refusal prints its messages and exits 1; no answer exits 2; no credentials exit 78', async () => {
      const refused = fakeIo({ outcome: answer(403, { errors: ['{ReplicationScope}: this key acts on its own replications only, so it cannot grant All'], requestId: 7 }) });
      await expect(runCli(['keys', 'create', '--operations', 'list', '--replications', 'all'], refused)).resolves.toBe(ExitCode.Failed);
      expect(refused.stderr).toBe('Error: HTTP 403 (request 7)\n  - {ReplicationScope}: this key acts on its own replications only, so it cannot grant All\n');
      const unreachable = fakeIo({ outcome: { kind: 'unreachable', message: 'cannot reach http://127.0.0.1:8080: connection refused' } });
      await expect(runCli(['keys', 'list'], unreachable)).resolves.toBe(ExitCode.Unreachable);
      const noCredentials = fakeIo({ env: {} });
      await expect(runCli(['keys', 'list'], noCredentials)).resolves.toBe(ExitCode.Configuration);
      expect(noCredentials.sent).toHaveLength(0);
    });
  });

  describe('describe --watch', () => {
    const description = (phase: string, rowsSeeded: number) => ({
      kind: 'response' as const,
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(
        JSON.stringify({
          replicationId: 'r-1',
          replicationName: 'orders',
          status: 'Running',
          tables: [{ name: '[public].[orders]', phase, rowsSeeded, rowsEstimated: 100, inFlightSeconds: 10, lagSeconds: 0 }],
          alerts: [],
        }),
      ),
    });

    it('polls the signed JSON Describe until every table is tracking, one plain frame per poll, then exits 0', async () => {
      const io = fakeIo({ outcomes: [description('Seeding', 40), description('Tracking', 100)] });
      await expect(runCli(['describe', '--replication-id', 'r-1', '--watch', '--until-tracking', '--interval', '1'], io)).resolves.toBe(ExitCode.Ok);
      expect(io.sent).toHaveLength(2);
      expect(io.sent[0]).toMatchObject({ operation: 'DescribeWarehouseReplication', contentType: 'application/json' });
      expect(io.sent[0]?.body.toString()).toBe('{"replicationId":"r-1"}');
      expect(io.stdout).toContain('[public].[orders]  Seeding    [############------------------] 40%  40/100 rows  4.0 rows/s  ETA 15s');
      expect(io.stdout).toContain('[public].[orders]  Tracking   lag 0s');
      expect(io.stdout).toMatch(/Every table is tracking \(1 table\)\.\n$/);
      expect(io.stdout).not.toContain('\u001B');
      expect(io.stderr).toBe('');
    });

    it('ends a 403 the way describe does: the error report on stderr, exit 1', async () => {
      const denied = { kind: 'response' as const, status: 403, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"errors":["access denied"],"requestId":7}') };
      const io = fakeIo({ outcomes: [denied] });
      await expect(runCli(['describe', '--replication-id', 'r-1', '--watch'], io)).resolves.toBe(ExitCode.Failed);
      expect(io.stderr).toBe('Error: HTTP 403 (request 7)\n  - access denied\n');
      expect(io.sent).toHaveLength(1);
    });

    it('needs credentials like any call (exit 78)', async () => {
      const io = fakeIo({ env: {} });
      await expect(runCli(['describe', '--replication-id', 'r-1', '--watch'], io)).resolves.toBe(ExitCode.Configuration);
    });
  });
});
