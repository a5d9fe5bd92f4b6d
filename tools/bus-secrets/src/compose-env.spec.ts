import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeComposeEnv } from './compose-env';

/** Issue 20: SVC_BOOTSTRAP_* looked optional, but without them compose started with no access key at all. */
describe('writeComposeEnv', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'compose-env-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes every variable docker-compose.yml requires, random, readable by its owner only", () => {
    const file = join(dir, '.env');
    const written = writeComposeEnv(file);
    const text = readFileSync(file, 'utf8');
    const required = [...readFileSync(join(__dirname, '..', '..', '..', 'docker-compose.yml'), 'utf8').matchAll(/\$\{([A-Z_]+):\?/g)].map((match) => match[1]);
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
