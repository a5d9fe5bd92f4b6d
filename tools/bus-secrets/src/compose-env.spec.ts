import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** The text of one service of docker-compose.yml: from its `  name:` line to the next service or top-level key. */
function serviceBlock(name: string): string {
  const start = composeFile.indexOf(`\n  ${name}:\n`, composeFile.indexOf('\nservices:\n'));
  if (start < 0) throw new Error(`docker-compose.yml has no service ${name}`);
  const rest = composeFile.slice(start + 1);
  const end = rest.slice(1).search(/\n {0,2}[a-z][a-z0-9-]*:/);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

/** Issue 36: every compose service got the superuser's DATABASE_URL, and the registry ran as the superuser. */
describe("compose's control database role", () => {
  it('gives a DATABASE_URL to the job-registry alone, as the svc_registry role with its own password', () => {
    const urls = [...composeFile.matchAll(/^\s*DATABASE_URL: (.*)$/gm)].map((match) => match[1]);
    expect(urls).toEqual(['postgres://svc_registry:${SVC_REGISTRY_DB_PASSWORD:?set SVC_REGISTRY_DB_PASSWORD}@postgres:5432/svc_registry']);
    expect(serviceBlock('job-registry')).toContain(`DATABASE_URL: ${urls[0]}`);
  });

  it("keeps the superuser's password with the postgres server and the postgres-init job", () => {
    const servicesSection = composeFile.slice(composeFile.indexOf('\nservices:\n'), composeFile.indexOf('\nvolumes:\n'));
    const services = [...servicesSection.matchAll(/^ {2}([a-z][a-z0-9-]*):$/gm)].map((match) => match[1] ?? '');
    expect(services).toContain('job-registry');
    const holders = services.filter((name) => serviceBlock(name).includes('POSTGRES_PASSWORD'));
    expect(holders).toEqual(['postgres', 'postgres-init']);
  });

  it('has postgres-init run deploy/postgres/svc-registry.sql for the role and database svc_registry before the services start', () => {
    const init = serviceBlock('postgres-init');
    expect(init).toContain('./deploy/postgres/svc-registry.sql:/svc/svc-registry.sql:ro');
    expect(init).toMatch(/psql .*-v ON_ERROR_STOP=1 -v role=svc_registry -v database=svc_registry -v password="\$\$SVC_REGISTRY_DB_PASSWORD" -f \/svc\/svc-registry\.sql/);
    expect(existsSync(join(__dirname, '..', '..', '..', 'deploy', 'postgres', 'svc-registry.sql'))).toBe(true);
    expect(composeFile).toMatch(/x-service: &service[\s\S]*?depends_on:[\s\S]*?postgres-init:\n\s+condition: service_completed_successfully/);
  });
});
