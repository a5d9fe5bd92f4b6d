import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ADMIN_KEY, TestStack, createTestCertificateAuthority, type TestCertificateAuthority } from '@svc/system-testing';

// `npm run build` output; SVC_CLI_MAIN may point at another build of main.js.
const BUILT_CLI = process.env['SVC_CLI_MAIN'] ?? resolve(__dirname, '../../../dist/apps/cli/src/main.js');

interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBuiltCli(argv: string[], env: Record<string, string>): Promise<ChildRun> {
  return new Promise((done) => {
    execFile(process.execPath, [BUILT_CLI, ...argv], { env: { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), ...env } }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

/** The built `svc` against a real gateway serving HTTPS with a certificate from a throwaway CA (issue 18). */
describe('svc against the api-gateway over HTTPS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-tls-'));
  const credentials = { SVC_ACCESS_KEY_ID: ADMIN_KEY.accessKeyId, SVC_SECRET_ACCESS_KEY: ADMIN_KEY.secretKey };
  let ca: TestCertificateAuthority;
  let stack: TestStack;

  beforeAll(async () => {
    ca = await createTestCertificateAuthority(dir);
    const served = await ca.issue('gateway', 4242, ['svc-gateway.test']);
    stack = new TestStack({ env: { TLS_CERT_FILE: served.certFile, TLS_KEY_FILE: served.keyFile }, gatewayCa: ca.certPem });
    await stack.start();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('makes a signed call when --ca-file or SVC_CA_FILE names the CA', async () => {
    const withFlag = await runBuiltCli(['list', '--endpoint', stack.baseUrl, '--ca-file', ca.certFile], credentials);
    expect(withFlag).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(withFlag.stdout)).toEqual(expect.objectContaining({ replications: [] }));

    const withEnv = await runBuiltCli(['list'], { ...credentials, SVC_ENDPOINT: stack.baseUrl, SVC_CA_FILE: ca.certFile });
    expect(withEnv).toMatchObject({ code: 0, stderr: '' });
  });

  it('refuses the gateway certificate without the CA, saying how to trust it (exit 2)', async () => {
    const untrusted = await runBuiltCli(['list', '--endpoint', stack.baseUrl], credentials);
    expect(untrusted).toEqual({
      code: 2,
      stdout: '',
      stderr: `Error: cannot reach ${stack.baseUrl}: the server's certificate is not signed by a CA this machine trusts (give the CA's certificate with --ca-file or SVC_CA_FILE)\n`,
    });
  });

  it('refuses plain HTTP to a host that is not loopback before connecting, unless --insecure', async () => {
    // Nothing listens on this address: a refusal that had tried to connect would say "cannot reach" (exit 2).
    const refused = await runBuiltCli(['create', '--body', '{"source":{"connectionString":"Password=leak-me"}}', '--endpoint', 'http://192.0.2.1:8080'], credentials);
    expect(refused.code).toBe(78);
    expect(refused.stderr).toBe(
      'Error: refusing to send a signed request over plain HTTP to http://192.0.2.1:8080: the request and its body (Create and Alter carry database ' +
        'passwords and S3 keys) would cross the network unencrypted. Use an https:// endpoint, or pass --insecure to send it anyway\n',
    );
    const insecure = await runBuiltCli(['list', '--endpoint', 'http://svc-gateway.invalid:1', '--insecure'], credentials);
    expect(insecure.code).toBe(2);
    expect(insecure.stderr).toMatch(/^Error: cannot reach http:\/\/svc-gateway\.invalid:1: (host not found|host name lookup failed)\n$/);
  });
});
