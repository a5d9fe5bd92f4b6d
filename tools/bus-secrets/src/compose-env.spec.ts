import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayNames } from './bus-secrets';
import { writeComposeEnv } from './compose-env';

const composeFile = readFileSync(join(__dirname, '..', '..', '..', 'docker-compose.yml'), 'utf8');

/** Issue 20: SVC_BOOTSTRAP_* looked optional, but without them compose started with no access key at all. */
describe('writeComposeEnv', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'compose-env-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes every variable docker-compose.yml requires, random, readable by its owner only", () => {
    const file = join(dir, '.env');
    const written = writeComposeEnv(file);
    const text = readFileSync(file, 'utf8');
    const required = [...composeFile.matchAll(/\$\{([A-Z_]+):\?/g)].map((match) => match[1]);
    for (const name of new Set(required)) expect(text).toMatch(new RegExp(`^${name}=\\S+$`, 'm'));
    expect(written?.masterKey).toMatch(/^[0-9a-f]{64}$/);
    expect(written?.bootstrapSecretKey.length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(writeComposeEnv(join(dir, 'other.env'))?.masterKey).not.toBe(written?.masterKey);
  });

  it('leaves an existing .env as it is: it may hold the master key that opens what is stored', () => {
    const file = join(dir, '.env');
    writeFileSync(file, 'SVC_MASTER_KEY=keep\n');
    expect(writeComposeEnv(file)).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe('SVC_MASTER_KEY=keep\n');
  });
});

/** Issue 36: compose's gateway listens on 0.0.0.0:8443 and answered calls signed for any Host (SVC_ALLOWED_HOSTS empty). */
describe("the compose gateway's SVC_ALLOWED_HOSTS", () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'compose-env-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("defaults to the names the gateway's certificate is made for, never to none", () => {
    const setting = /^\s*SVC_ALLOWED_HOSTS: (.*)$/m.exec(composeFile)?.[1];
    expect(setting).toBe(`\${SVC_ALLOWED_HOSTS:-${gatewayNames([]).join(',')}}`);
    expect(gatewayNames([])).toEqual(['localhost', '127.0.0.1', 'api-gateway']);
  });

  it('is written into .env with the --gateway-host names, so that clients of those names are answered', () => {
    const file = join(dir, '.env');
    writeComposeEnv(file, undefined, gatewayNames(['replication.example.com']));
    expect(readFileSync(file, 'utf8')).toMatch(/^SVC_ALLOWED_HOSTS=localhost,127\.0\.0\.1,api-gateway,replication\.example\.com$/m);
  });
});
