import { CliFailure, ExitCode, UsageError } from '../exit-codes';
import type { CliEnvironment } from '../cli-environment';
import type { ConnectionFlags } from '../args/parse-args';
import { credentialsFilePath, resolveClientSettings } from './client-settings';

const HOME = '/home/ada';
const DEFAULT_FILE = '/home/ada/.svc/credentials';

const CREDENTIALS_FILE = `
[default]
svc_access_key_id = AKDEFAULT
svc_secret_access_key = secret-default

[prod]
svc_access_key_id = AKPROD
svc_secret_access_key = secret-prod
endpoint = https://svc.prod.example
region = eu-west-1

[half]
svc_access_key_id = AKHALF
`;

function resolve(flags: ConnectionFlags, env: CliEnvironment, files: Record<string, string> = { [DEFAULT_FILE]: CREDENTIALS_FILE }) {
  const read: string[] = [];
  const promise = resolveClientSettings({
    flags,
    env,
    homeDir: HOME,
    readTextFile: async (path) => {
      read.push(path);
      return files[path];
    },
  });
  return { promise, read };
}

async function failure(promise: Promise<unknown>): Promise<CliFailure> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof CliFailure)) throw new Error(`expected a CliFailure, got ${String(error)}`);
  return error;
}

describe('resolveClientSettings', () => {
  it('uses the default profile and defaults when nothing else is given', async () => {
    await expect(resolve({}, {}).promise).resolves.toEqual({
      credentials: { accessKeyId: 'AKDEFAULT', secretKey: 'secret-default' },
      endpoint: 'http://127.0.0.1:8080',
      region: 'us-east-1',
    });
  });

  it('lets environment credentials win over the profile, while endpoint and region still come from the profile', async () => {
    await expect(
      resolve({ profile: 'prod' }, { accessKeyId: 'AKENV', secretAccessKey: 'secret-env' }).promise,
    ).resolves.toEqual({
      credentials: { accessKeyId: 'AKENV', secretKey: 'secret-env' },
      endpoint: 'https://svc.prod.example',
      region: 'eu-west-1',
    });
  });

  it('takes the profile from SVC_PROFILE, and --profile over SVC_PROFILE', async () => {
    await expect(resolve({}, { profile: 'prod' }).promise).resolves.toMatchObject({ credentials: { accessKeyId: 'AKPROD' } });
    await expect(resolve({ profile: 'default' }, { profile: 'prod' }).promise).resolves.toMatchObject({
      credentials: { accessKeyId: 'AKDEFAULT' },
      endpoint: 'http://127.0.0.1:8080',
    });
  });

  it('orders endpoint and region as flag, environment, profile', async () => {
    const env = { profile: 'prod', endpoint: 'http://env:1', region: 'env-region' };
    await expect(resolve({}, env).promise).resolves.toMatchObject({ endpoint: 'http://env:1', region: 'env-region' });
    await expect(resolve({ endpoint: 'http://flag:2', region: 'flag-region' }, env).promise).resolves.toMatchObject({
      endpoint: 'http://flag:2',
      region: 'flag-region',
    });
  });

  it('reads the file named by SVC_SHARED_CREDENTIALS_FILE, expanding ~', async () => {
    const { promise, read } = resolve({}, { credentialsFile: '~/elsewhere/creds' }, { '/home/ada/elsewhere/creds': '[default]\nsvc_access_key_id=AKX\nsvc_secret_access_key=sx\n' });
    await expect(promise).resolves.toMatchObject({ credentials: { accessKeyId: 'AKX', secretKey: 'sx' } });
    expect(read).toEqual(['/home/ada/elsewhere/creds']);
    expect(credentialsFilePath({ credentialsFile: '/etc/svc/creds' }, HOME)).toBe('/etc/svc/creds');
  });

  it('works from the environment alone when no file exists', async () => {
    await expect(resolve({}, { accessKeyId: 'AKENV', secretAccessKey: 'secret-env' }, {}).promise).resolves.toMatchObject({
      credentials: { accessKeyId: 'AKENV' },
      endpoint: 'http://127.0.0.1:8080',
    });
  });

  it('explains missing credentials naming the variables and the file', async () => {
    const error = await failure(resolve({}, {}, {}).promise);
    expect(error.exitCode).toBe(ExitCode.Configuration);
    expect(error.message).toContain('SVC_ACCESS_KEY_ID');
    expect(error.message).toContain('SVC_SECRET_ACCESS_KEY');
    expect(error.message).toContain(DEFAULT_FILE);
    expect(error.message).toContain('svc_access_key_id');
  });

  it('names the missing key of an incomplete profile without printing the one that is there', async () => {
    const error = await failure(resolve({ profile: 'half' }, {}).promise);
    expect(error.message).toContain('lacks svc_secret_access_key');
    expect(error.message).not.toContain('AKHALF');
  });

  it('rejects half of the environment pair without echoing the secret', async () => {
    const error = await failure(resolve({}, { secretAccessKey: 'topsecret' }).promise);
    expect(error.message).toContain('SVC_ACCESS_KEY_ID is not set');
    expect(error.message).not.toContain('topsecret');
  });

  it('rejects an explicitly named profile that does not exist, even with environment credentials', async () => {
    const env = { accessKeyId: 'AKENV', secretAccessKey: 'secret-env' };
    expect((await failure(resolve({ profile: 'nope' }, env).promise)).message).toBe(`no profile [nope] in ${DEFAULT_FILE}`);
    expect((await failure(resolve({}, { ...env, profile: 'nope' }, {}).promise)).message).toContain('does not exist');
  });

  it('reports a malformed file by line, without its content', async () => {
    const error = await failure(resolve({}, {}, { [DEFAULT_FILE]: '[default]\nsecret-line-without-equals\n' }).promise);
    expect(error.message).toContain('line 2');
    expect(error.message).not.toContain('secret-line');
  });

  it('rejects an endpoint that is not an http(s) URL, saying where it came from', async () => {
    await expect(resolve({ endpoint: 'ftp://x' }, {}).promise).rejects.toThrow(new UsageError('the endpoint from --endpoint must be an http or https URL'));
    await expect(resolve({}, { endpoint: 'not a url' }).promise).rejects.toThrow('the endpoint from SVC_ENDPOINT is not a valid URL');
  });

  describe("npm start's development key (issue 20: the demo's command failed with 'no credentials' in a new terminal)", () => {
    const RECORD = '/repo/tmp/local-stack.json';
    const record = JSON.stringify({ pid: 1, api: 'http://127.0.0.1:8080', developmentKey: { accessKeyId: 'SVCLOCALDEVELOPMENT', secretKey: 'dev-secret' } });
    const withStack = (flags: ConnectionFlags, env: CliEnvironment, files: Record<string, string> = { [RECORD]: record }) =>
      resolveClientSettings({ flags, env, homeDir: HOME, readTextFile: async (path) => files[path], runningStackFile: RECORD });

    it('uses the key of the npm start running from this checkout when nothing else names credentials, and says so', async () => {
      const settings = await withStack({}, {});
      expect(settings).toMatchObject({ credentials: { accessKeyId: 'SVCLOCALDEVELOPMENT', secretKey: 'dev-secret' }, endpoint: 'http://127.0.0.1:8080' });
      expect(settings.notice).toBe(`svc: no credentials set; using the development access key SVCLOCALDEVELOPMENT of the npm start running here (${RECORD}, API http://127.0.0.1:8080)\n`);
      expect(settings.notice).not.toContain('dev-secret');
    });

    it('never takes it over credentials the user set, for another endpoint, for a named profile, or without a running stack', async () => {
      expect((await withStack({}, { accessKeyId: 'AKENV', secretAccessKey: 'env-secret' })).credentials.accessKeyId).toBe('AKENV');
      expect((await withStack({}, {}, { [RECORD]: record, [DEFAULT_FILE]: CREDENTIALS_FILE })).credentials.accessKeyId).toBe('AKDEFAULT');
      await expect(withStack({ endpoint: 'https://svc.prod.example' }, {})).rejects.toThrow('no credentials');
      await expect(withStack({ profile: 'prod' }, {})).rejects.toThrow('does not exist');
      await expect(withStack({}, {}, {})).rejects.toThrow('no credentials');
      await expect(withStack({}, {}, { [RECORD]: JSON.stringify({ pid: 1, api: 'http://127.0.0.1:8080' }) })).rejects.toThrow('no credentials');
    });
  });
});
