import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEVELOPMENT_ACCESS_KEY_ID, developmentKeyPath, loadOrCreateDevelopmentKey, readDevelopmentKey } from './development-key-file';

/** Issue 36: npm start's admin key had a secret printed in the README, so any user of the machine was admin. */
describe("npm start's development access key file", () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'svc-development-key-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('lives in tmp/ of the checkout, beside the embedded S3 key pair, unless DEVELOPMENT_KEY_FILE names another file', () => {
    expect(developmentKeyPath({}, '/repo')).toBe('/repo/tmp/development-key.json');
    expect(developmentKeyPath({ DEVELOPMENT_KEY_FILE: '' }, '/repo')).toBe('/repo/tmp/development-key.json');
    expect(developmentKeyPath({ DEVELOPMENT_KEY_FILE: '/home/me/key.json' }, '/repo')).toBe('/home/me/key.json');
  });

  it('gets a random secret on first use, readable by its owner only, and the same one afterwards', () => {
    const path = join(directory, 'nested', 'development-key.json');
    const first = loadOrCreateDevelopmentKey(path);
    expect(first.accessKeyId).toBe(DEVELOPMENT_ACCESS_KEY_ID);
    // 30 random bytes: at least the 32 characters the registry asks of a bootstrap secret outside development.
    expect(first.secretKey).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(first.secretKey).not.toBe('local-development-secret-key-change-me');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadOrCreateDevelopmentKey(path)).toEqual(first);
    expect(readDevelopmentKey(path)).toEqual(first);
  });

  it('differs from one installation to another', () => {
    const secrets = new Set(['a', 'b', 'c'].map((name) => loadOrCreateDevelopmentKey(join(directory, name, 'development-key.json')).secretKey));
    expect(secrets.size).toBe(3);
  });

  it('is refused when others can read it, naming the file and the fix', () => {
    const path = join(directory, 'development-key.json');
    loadOrCreateDevelopmentKey(path);
    chmodSync(path, 0o644);
    expect(() => readDevelopmentKey(path)).toThrow(`${path} can be read by other users; make it yours alone (chmod 600 ${path}) and start again`);
    expect(() => loadOrCreateDevelopmentKey(path)).toThrow(/can be read by other users/);
  });

  it('says that npm start writes it when it is missing, and what a broken one must hold, without echoing values', () => {
    const path = join(directory, 'development-key.json');
    expect(() => readDevelopmentKey(path)).toThrow(`${path} does not exist: \`npm start\` writes its development access key there on its first run`);
    writeFileSync(path, JSON.stringify({ accessKeyId: DEVELOPMENT_ACCESS_KEY_ID, secretKey: '' }), { mode: 0o600 });
    expect(() => readDevelopmentKey(path)).toThrow(`${path} must hold a JSON object with non-empty strings accessKeyId and secretKey`);
    writeFileSync(path, 'hunter2', { mode: 0o600 });
    expect(() => readDevelopmentKey(path)).toThrow(`${path} is not JSON; delete it to have \`npm start\` write a new development access key`);
    expect(() => readDevelopmentKey(path)).not.toThrow(/hunter2/);
    expect(readFileSync(path, 'utf8')).toBe('hunter2');
  });
});
