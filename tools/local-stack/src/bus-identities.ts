import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nkeys } from 'nats';
import { BUS_ROLES, newUserNkey, type BusRole } from '@svc/messaging';

/** One role's identity on npm start's own bus: the seed stays with that role's process, the server gets the public key. */
export interface BusIdentity {
  role: BusRole;
  seed: string;
  publicKey: string;
}

const SEED_SETTING = 'NATS_NKEY_SEED';
/** A user nkey's seed, as the services' readNatsSecurity accepts it. */
const USER_SEED = /^SU[A-Z2-7]{56}$/;

/** nats.js's nkeys module, as far as it is used here (its re-export is untyped). */
interface SeedDecoder {
  fromSeed(seed: Uint8Array): { getPublicKey(): string };
}

export function identityFileOf(keysDir: string, role: BusRole): string {
  return join(keysDir, `${role}.env`);
}

/**
 * Every role's identity, made at random on the first start and read back on every later one, so the services keep
 * theirs across restarts. One env file per role (as `npm run secrets` writes for compose: an operator can `set -a; .`
 * its file), mode 0600 in a folder of mode 0700.
 */
export function loadOrCreateBusIdentities(keysDir: string): BusIdentity[] {
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  chmodSync(keysDir, 0o700);
  return BUS_ROLES.map((role) => loadOrCreateIdentity(identityFileOf(keysDir, role), role));
}

function loadOrCreateIdentity(file: string, role: BusRole): BusIdentity {
  const made = newUserNkey();
  const text = [`# NATS identity of the ${role} role on npm start's own nats-server. Secret: never commit, never log.`, `${SEED_SETTING}=${made.seed}`, ''].join('\n');
  try {
    // 'wx': never replaces the identity another start wrote meanwhile.
    writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
    return { role, ...made };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readIdentity(file, role);
  }
}

/** A role's identity from its file; errors name the file and what is wrong, never the seed. */
export function readIdentity(file: string, role: BusRole): BusIdentity {
  if ((statSync(file).mode & 0o077) !== 0) throw new Error(`${file} can be read by other users; make it yours alone (chmod 600 ${file}) and start again`);
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${SEED_SETTING}=`));
  const seed = line?.slice(SEED_SETTING.length + 1).trim() ?? '';
  if (!USER_SEED.test(seed)) {
    throw new Error(`${file} must hold a line ${SEED_SETTING}=<a user nkey seed>; delete it to have npm start make a new identity for ${role}`);
  }
  return { role, seed, publicKey: (nkeys as SeedDecoder).fromSeed(new TextEncoder().encode(seed)).getPublicKey() };
}
