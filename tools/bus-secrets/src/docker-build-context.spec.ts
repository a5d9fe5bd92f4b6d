import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { writeBusSecrets } from './bus-secrets';
import { writeComposeEnv } from './compose-env';
import { parseDockerignore } from './dockerignore';
import { secretsOutputs } from './output-paths';

const repoRoot = join(__dirname, '..', '..', '..');
const dockerignore = parseDockerignore(readFileSync(join(repoRoot, '.dockerignore'), 'utf8'));

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return [path];
  });
}

/**
 * Issue 36: the Dockerfile's build stage runs `COPY . .`, and .dockerignore left out neither .env nor deploy/secrets/,
 * so the master key, the bootstrap secret, the CA key and the nkey seeds went into build layers and the build cache.
 */
describe('the Docker build context', () => {
  let checkout = '';
  beforeAll(() => {
    checkout = mkdtempSync(join(tmpdir(), 'svc-build-context-'));
    // What `npm run secrets` writes, where it writes it in a checkout.
    const { secretsDir, composeEnvFile } = secretsOutputs(checkout);
    writeBusSecrets({ dir: secretsDir, natsNodes: ['nats-1', 'nats-2', 'nats-3'], gatewayHosts: ['replication.example.com'] });
    writeComposeEnv(composeEnvFile);
  });
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));

  it('holds no file `npm run secrets` writes', () => {
    const written = filesUnder(checkout).map((file) => relative(checkout, file));
    expect(written).toEqual(expect.arrayContaining(['.env', 'deploy/secrets/certs/ca-key.pem', 'deploy/secrets/env/job-registry.env']));
    expect(written.filter((path) => !dockerignore.excludes(path))).toEqual([]);
  });

  it("holds neither npm start's keys in tmp/, nor any .env, nor keys and env files put elsewhere (npm run secrets --out)", () => {
    const elsewhere = ['my-secrets/certs/ca-key.pem', 'my-secrets/env/operator.env', 'nats/user.creds', 'nats/user.nk', 'tls/server.key'];
    for (const path of ['.env', '.env.local', 'tmp/development-key.json', 'tmp/embedded-s3-credentials.json', 'tmp/local-stack.json', 'tmp/nats/keys/operator.env', ...elsewhere]) {
      expect([path, dockerignore.excludes(path)]).toEqual([path, true]);
    }
  });

  it('still holds what the build stage needs: the package files, the TypeScript configurations and every source file', () => {
    const sources = ['apps', 'libs', 'tools'].flatMap((folder) => filesUnder(join(repoRoot, folder))).map((file) => relative(repoRoot, file));
    expect(sources).toEqual(expect.arrayContaining(['apps/api-gateway/src/main.ts', 'apps/console/static/index.html']));
    const needed = ['package.json', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.build.json', 'apps/console/tsconfig.build.json', ...sources];
    expect(needed.filter((path) => dockerignore.excludes(path))).toEqual([]);
  });
});
