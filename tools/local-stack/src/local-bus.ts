import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { natsServerConfig, type BusRole } from '@svc/messaging';
import { loadOrCreateBusIdentities, type BusIdentity } from './bus-identities';

export interface LocalBusLayout {
  /** The bus's folder (LOCAL_NATS_DIR): its identities, its JetStream store, its server's configuration. */
  dir: string;
  port: number;
}

/** npm start's own bus, ready for its nats-server to run: where it listens and who may connect. */
export interface LocalBus {
  url: string;
  port: number;
  configFile: string;
  storeDir: string;
  keysDir: string;
  seedOf(role: BusRole): string;
}

/**
 * Lays out npm start's own bus as compose's is (natsServerConfig: a user per role held to its permissions, nobody
 * anonymous), on loopback, where TLS would protect nothing: the identities are kept from one start to the next, the
 * configuration is written anew each time (the port and the permission model follow the settings and the code), and
 * the JetStream store, which holds replicated rows, is the user's alone.
 */
export function prepareLocalBus(layout: LocalBusLayout): LocalBus {
  mkdirSync(layout.dir, { recursive: true, mode: 0o700 });
  const keysDir = join(layout.dir, 'keys');
  const storeDir = join(layout.dir, 'store');
  const identities = loadOrCreateBusIdentities(keysDir);
  mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  chmodSync(storeDir, 0o700);
  const configFile = join(layout.dir, 'nats-server.json');
  writeFileSync(configFile, natsServerConfig({ serverName: 'svc-local', host: '127.0.0.1', port: layout.port, storeDir, identities }), { mode: 0o600 });
  return { url: `nats://127.0.0.1:${layout.port}`, port: layout.port, configFile, storeDir, keysDir, seedOf: (role) => seedOf(identities, role) };
}

function seedOf(identities: readonly BusIdentity[], role: BusRole): string {
  const identity = identities.find((candidate) => candidate.role === role);
  if (identity === undefined) throw new Error(`npm start's bus has no identity for ${role}`);
  return identity.seed;
}
