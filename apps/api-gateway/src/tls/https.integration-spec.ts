import { mkdtempSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import {
  ADMIN_KEY,
  ServiceProcess,
  TestStack,
  callSigned,
  createTestCertificateAuthority,
  send,
  type IssuedCertificate,
  type TestCertificateAuthority,
} from '@svc/system-testing';
import { freePort, waitUntil } from '@svc/testing';

const HSTS = 'max-age=31536000';

/** The certificate the gateway presents to a new connection (verified against `ca`). */
function servedCertificate(baseUrl: string, ca: string): Promise<PeerCertificate> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca, servername: 'localhost' }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on('error', reject);
  });
}

/** Writes raw bytes over TLS and returns everything the server sends before it closes. */
function exchangeOverTls(baseUrl: string, ca: string, bytes: string): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca, servername: 'localhost' }, () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function plainHttpGet(baseUrl: string): Promise<number> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: url.hostname, port: url.port, path: '/health', timeout: 5000 }, (incoming) => resolve(incoming.statusCode ?? 0));
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer')));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** The error code a call fails with; a call that succeeds is a failure of the test. */
async function failureCode(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return String((error as NodeJS.ErrnoException).code);
  }
  throw new Error('the call succeeded');
}

/** Replaces a file the way a renewal tool does: a new file renamed over the old path. */
async function replaceFile(path: string, content: Buffer | string): Promise<void> {
  await writeFile(`${path}.new`, content);
  await rename(`${path}.new`, path);
}

/** The api-gateway over HTTPS (issue 18): a real gateway and registry from dist/, certificates made by openssl. */
describe('api-gateway with TLS_CERT_FILE and TLS_KEY_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gateway-tls-'));
  const servedCert = join(dir, 'served.crt');
  const servedKey = join(dir, 'served.key');
  let ca: TestCertificateAuthority;
  let first: IssuedCertificate;
  let stack: TestStack;

  beforeAll(async () => {
    ca = await createTestCertificateAuthority(dir);
    first = await ca.issue('gateway-first', 4097);
    await writeFile(servedCert, await readFile(first.certFile));
    await writeFile(servedKey, await readFile(first.keyFile));
    stack = new TestStack({ env: { TLS_CERT_FILE: servedCert, TLS_KEY_FILE: servedKey }, gatewayCa: ca.certPem });
    await stack.start();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('serves the API, /health and the console over HTTPS, every answer with HSTS, and says so in its log', async () => {
    expect(stack.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const listed = await callSigned(stack.baseUrl, 'ListWarehouseReplications', 'json', '{}', ADMIN_KEY, { ca: ca.certPem });
    expect(listed.status).toBe(200);
    expect(listed.headers['strict-transport-security']).toBe(HSTS);
    const unsigned = await send(stack.baseUrl, 'POST', '/api/ListWarehouseReplications', { 'content-type': 'application/json' }, '{}', { ca: ca.certPem });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers['strict-transport-security']).toBe(HSTS);
    for (const path of ['/health', '/console/']) {
      const answer = await send(stack.baseUrl, 'GET', path, {}, '', { ca: ca.certPem });
      expect([path, answer.status, answer.headers['strict-transport-security']]).toEqual([path, 200, HSTS]);
    }
    expect(stack.gateway.logs()).toMatch(/"msg":"api-gateway listening on HTTPS"/);
    expect(stack.gateway.logs()).not.toContain('plain HTTP');
  });

  it('is refused by a client that does not trust its CA, and by one that trusts another CA; plain HTTP to its port gets no answer', async () => {
    expect(await failureCode(send(stack.baseUrl, 'GET', '/health', {}, ''))).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    const otherCa = await createTestCertificateAuthority(dir, 'other-ca');
    expect(await failureCode(send(stack.baseUrl, 'GET', '/health', {}, '', { ca: otherCa.certPem }))).toMatch(/UNABLE_TO_GET_ISSUER_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    await expect(plainHttpGet(stack.baseUrl.replace(/^https:/, 'http:'))).rejects.toThrow();
    // Those failed handshakes cost the process nothing.
    expect(stack.gateway.exited).toBe(false);
    expect((await send(stack.baseUrl, 'GET', '/health', {}, '', { ca: ca.certPem })).status).toBe(200);
  });

  it('answers a request it cannot parse, inside TLS, with the API 400 and HSTS', async () => {
    const answer = await exchangeOverTls(stack.baseUrl, ca.certPem, 'BR OKEN /health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain(`\r\nStrict-Transport-Security: ${HSTS}\r\n`);
    expect(answer).toContain('the request is not well-formed HTTP/1.1');
  });

  it('keeps its certificate when the files change to something unusable, and serves a renewed one without a restart', async () => {
    const pid = stack.gateway.pid;
    expect((await servedCertificate(stack.baseUrl, ca.certPem)).serialNumber).toBe(first.serialNumber);
    const firstKey = await readFile(first.keyFile, 'utf8');

    // A renewed certificate without its key: the old key does not match it.
    const renewed = await ca.issue('gateway-renewed', 8193);
    await replaceFile(servedCert, await readFile(renewed.certFile));
    await waitUntil(async () => stack.gateway.logs().includes('still serving the previous certificate'), 10_000, 'the warning about unusable files');
    expect((await servedCertificate(stack.baseUrl, ca.certPem)).serialNumber).toBe(first.serialNumber);

    await replaceFile(servedKey, await readFile(renewed.keyFile));
    await waitUntil(async () => (await servedCertificate(stack.baseUrl, ca.certPem)).serialNumber === renewed.serialNumber, 10_000, 'the renewed certificate');
    const served = await servedCertificate(stack.baseUrl, ca.certPem);
    expect(served.subject.CN).toBe('gateway-renewed');
    expect(stack.gateway.pid).toBe(pid);
    expect(stack.gateway.logs()).toMatch(/"msg":"TLS certificate reloaded".*gateway-renewed/);
    expect((await callSigned(stack.baseUrl, 'ListWarehouseReplications', 'json', '{}', ADMIN_KEY, { ca: ca.certPem })).status).toBe(200);

    // No line of either private key reached the log.
    const renewedKey = await readFile(renewed.keyFile, 'utf8');
    for (const keyLine of [...firstKey.split('\n'), ...renewedKey.split('\n')].filter((line) => line.length > 20 && !line.startsWith('-----'))) {
      expect(stack.logs()).not.toContain(keyLine);
    }
  }, 30_000);

  it('without TLS, on every interface, warns once at start that the API is plain HTTP', async () => {
    const port = await freePort();
    const gateway = new ServiceProcess('api-gateway', { NATS_URL: stack.nats.url, PORT: String(port), HOST: '0.0.0.0', LOG_LEVEL: 'info' });
    gateway.start();
    try {
      await waitUntil(async () => (await send(`http://127.0.0.1:${port}`, 'GET', '/health', {}, '')).status === 200, 20_000, 'the plain gateway');
      const lines = gateway.logs().split('\n').filter((line) => line.includes('travel unencrypted'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('"level":"warn"');
      expect(lines[0]).toContain('Set TLS_CERT_FILE and TLS_KEY_FILE');
      const health = await send(`http://127.0.0.1:${port}`, 'GET', '/health', {}, '');
      expect(health.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await gateway.stop();
    }
  });

  it('refuses to start with a key that is not the certificate key, naming the files only', async () => {
    const port = await freePort();
    const other = await ca.issue('gateway-other', 12289);
    const gateway = new ServiceProcess('api-gateway', { NATS_URL: stack.nats.url, PORT: String(port), HOST: '127.0.0.1', TLS_CERT_FILE: servedCert, TLS_KEY_FILE: other.keyFile });
    gateway.start();
    await waitUntil(async () => gateway.exited, 20_000, 'the gateway to give up');
    expect(gateway.logs()).toContain(`TLS_KEY_FILE: ${other.keyFile} is not the private key of the certificate in ${servedCert}`);
    expect(gateway.logs()).not.toContain('PRIVATE KEY');
  });
});
