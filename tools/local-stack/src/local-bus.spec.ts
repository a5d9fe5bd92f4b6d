import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUS_ROLES, busPermissionsOf } from '@svc/messaging';
import { loadOrCreateBusIdentities } from './bus-identities';
import { prepareLocalBus } from './local-bus';

interface ServerConfig {
  host: string;
  port: number;
  jetstream: { store_dir: string };
  tls?: unknown;
  no_auth_user?: unknown;
  authorization: { users: { nkey: string; permissions?: { publish: { allow: string[] }; subscribe: { allow: string[] } } }[] };
}

describe("npm start's own bus, as laid out for its nats-server", () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'svc-local-bus-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('listens on loopback only, keeps JetStream in a folder of the user alone, and lets in only the roles, each held to its permissions', () => {
    const bus = prepareLocalBus({ dir: directory, port: 4399 });
    expect(bus.url).toBe('nats://127.0.0.1:4399');
    const config = JSON.parse(readFileSync(bus.configFile, 'utf8')) as ServerConfig;
    expect(config).toMatchObject({ host: '127.0.0.1', port: 4399, jetstream: { store_dir: join(directory, 'store') } });
    expect(statSync(bus.storeDir).mode & 0o777).toBe(0o700);
    expect(config.no_auth_user).toBeUndefined();
    const identities = loadOrCreateBusIdentities(bus.keysDir);
    expect(config.authorization.users).toHaveLength(BUS_ROLES.length);
    for (const identity of identities) {
      const user = config.authorization.users.find((candidate) => candidate.nkey === identity.publicKey);
      expect(user?.permissions?.publish.allow).toEqual(busPermissionsOf(identity.role).publish);
      expect(user?.permissions?.subscribe.allow).toEqual(busPermissionsOf(identity.role).subscribe);
      expect(bus.seedOf(identity.role)).toBe(identity.seed);
    }
  });

  it('writes no seed into the server configuration', () => {
    const bus = prepareLocalBus({ dir: directory, port: 4399 });
    const text = readFileSync(bus.configFile, 'utf8');
    for (const role of BUS_ROLES) expect(text).not.toContain(bus.seedOf(role));
  });

  it('keeps its identities across starts and follows the port of each', () => {
    const first = prepareLocalBus({ dir: directory, port: 4399 });
    const second = prepareLocalBus({ dir: directory, port: 4400 });
    for (const role of BUS_ROLES) expect(second.seedOf(role)).toBe(first.seedOf(role));
    expect((JSON.parse(readFileSync(second.configFile, 'utf8')) as ServerConfig).port).toBe(4400);
  });
});
