import { rpcOk } from '@svc/contracts';
import { runCli, type CliIo } from './cli';
import { ExitCode } from './exit-codes';
import type { SendOperationInput, SendOutcome } from './http/send-operation';
import type { AccessKeyRequester } from './keys/create-access-key';

interface FakeIo extends CliIo {
  stdout: string;
  stderr: string;
  sent: SendOperationInput[];
  registryUrls: string[];
  closed: number;
}

function fakeIo(options: { files?: Record<string, string>; outcome?: SendOutcome; env?: CliIo['env']; requester?: AccessKeyRequester } = {}): FakeIo {
  const io: FakeIo = {
    stdout: '',
    stderr: '',
    sent: [],
    registryUrls: [],
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
      return options.outcome ?? { kind: 'response', status: 200, headers: {}, body: Buffer.alloc(0) };
    },
    openRegistry: async (url) => {
      io.registryUrls.push(url);
      if (options.requester === undefined) throw Object.assign(new Error('CONNECTION_REFUSED'), { code: 'CONNECTION_REFUSED' });
      return {
        requester: options.requester,
        close: async () => {
          io.closed++;
        },
      };
    },
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
      files: { '/etc/svc': '[default]\nsvc_access_key_id=AKFILE\nsvc_secret_access_key=file-secret\nendpoint=http://gw:9000\n' },
    });
    await expect(runCli(['list'], io)).resolves.toBe(ExitCode.Ok);
    expect(io.sent[0]).toMatchObject({ endpoint: 'http://gw:9000', credentials: { accessKeyId: 'AKFILE', secretKey: 'file-secret' } });
    expect(io.stdout + io.stderr).not.toContain('file-secret');
  });

  it('keys create: asks the registry at --nats-url, prints the new key once and closes the connection', async () => {
    const requester: AccessKeyRequester = {
      request: async (_subject, payload) => rpcOk({ accessKeyId: 'AKNEW', secretKey: 'new-secret', allowedOperations: payload.allowedOperations }),
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
    await expect(runCli(['keys', 'create', '--operations', '*'], io)).resolves.toBe(ExitCode.Unreachable);
    expect(io.registryUrls).toEqual(['nats://user:pw-in-url@127.0.0.1:1']);
    expect(io.stderr).toBe('Error: cannot reach nats://127.0.0.1:1: connection refused\n');
  });
});
