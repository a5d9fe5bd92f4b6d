import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from 'nats';
import { BUS_ROLES } from '@svc/messaging';
import { identityFileOf, loadOrCreateBusIdentities } from './bus-identities';

interface KeyPair {
  sign(data: Uint8Array): Uint8Array;
  verify(data: Uint8Array, signature: Uint8Array): boolean;
}
const nkeyModule = nkeys as { fromSeed(seed: Uint8Array): KeyPair; fromPublic(publicKey: string): KeyPair };

describe("the identities of npm start's own bus", () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'svc-bus-identities-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('are made once per role, kept 0600 in a 0700 folder, and read back the same on the next start', () => {
    const keysDir = join(directory, 'nats', 'keys');
    const first = loadOrCreateBusIdentities(keysDir);
    expect(first.map((identity) => identity.role)).toEqual([...BUS_ROLES]);
    expect(new Set(first.map((identity) => identity.seed)).size).toBe(BUS_ROLES.length);
    expect(statSync(keysDir).mode & 0o777).toBe(0o700);
    for (const role of BUS_ROLES) expect(statSync(identityFileOf(keysDir, role)).mode & 0o777).toBe(0o600);
    expect(loadOrCreateBusIdentities(keysDir)).toEqual(first);
  });

  it('pair each seed with its own public key (what the server is told)', () => {
    for (const identity of loadOrCreateBusIdentities(directory)) {
      expect(identity.seed).toMatch(/^SU[A-Z2-7]{56}$/);
      const nonce = new TextEncoder().encode(`nonce-${identity.role}`);
      const signature = nkeyModule.fromSeed(new TextEncoder().encode(identity.seed)).sign(nonce);
      expect(nkeyModule.fromPublic(identity.publicKey).verify(nonce, signature)).toBe(true);
    }
  });

  it('are files a shell can source, as compose operators do with theirs', () => {
    const [registry] = loadOrCreateBusIdentities(directory);
    expect(readFileSync(identityFileOf(directory, 'job-registry'), 'utf8')).toContain(`\nNATS_NKEY_SEED=${registry?.seed ?? ''}\n`);
  });

  it('close a folder others could open, and refuse a seed file others can read, naming the fix', () => {
    loadOrCreateBusIdentities(directory);
    chmodSync(directory, 0o755);
    loadOrCreateBusIdentities(directory);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    const file = identityFileOf(directory, 'extractor');
    chmodSync(file, 0o644);
    expect(() => loadOrCreateBusIdentities(directory)).toThrow(`${file} can be read by other users; make it yours alone (chmod 600 ${file}) and start again`);
  });

  it('say what a broken file must hold without echoing it', () => {
    const file = identityFileOf(directory, 'loader');
    writeFileSync(file, 'NATS_NKEY_SEED=hunter2\n', { mode: 0o600 });
    expect(() => loadOrCreateBusIdentities(directory)).toThrow(`${file} must hold a line NATS_NKEY_SEED=<a user nkey seed>; delete it to have npm start make a new identity for loader`);
    expect(() => loadOrCreateBusIdentities(directory)).not.toThrow(/hunter2/);
  });
});
