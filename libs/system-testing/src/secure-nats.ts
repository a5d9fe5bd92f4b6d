import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsSecurity } from '@svc/config';
import { CertificateAuthority } from '@svc/crypto';
import { generateBusCredentials, natsServerConfig, newUserNkey, type BusCredential, type BusRole, type NatsConnectionSpec } from '@svc/messaging';
import { startTestNats, startTestNatsCluster, type TestNats, type TestNatsCluster, type TestNatsNodeLayout, type TestNatsServer } from '@svc/testing';

/** A bus with the production permission model (natsServerConfig), nkeys for every role and TLS from a private CA. */
export interface SecureBus {
  caFile: string;
  credentials: readonly BusCredential[];
  /** The settings a service of `role` runs with (NATS_NKEY_SEED, NATS_CA_FILE). */
  envOf(role: BusRole): Record<string, string>;
  /** How a client of `role` connects. */
  specOf(role: BusRole): NatsConnectionSpec;
  /** A user allowed everything, for the test's own looks into streams and consumers; no service runs with it. */
  administrator: NatsConnectionSpec;
}

export interface SecuredTestNats {
  bus: SecureBus;
}

export function isSecuredTestNats(nats: TestNats): nats is TestNats & SecuredTestNats {
  return 'bus' in nats;
}

/** A single private nats-server that requires TLS and an nkey of one of the roles (see busPermissionsOf). */
export async function startSecureTestNats(): Promise<TestNatsServer & SecuredTestNats> {
  const material = makeBusMaterial();
  try {
    const nats = await startTestNats({ config: material.writeConfig, scheme: 'tls' });
    return { ...nats, bus: material.bus, stop: () => nats.stop().finally(material.remove) };
  } catch (error) {
    material.remove();
    throw error;
  }
}

/** The same as a three-node cluster whose routes are mutual TLS. */
export async function startSecureTestNatsCluster(size = 3): Promise<TestNatsCluster & SecuredTestNats> {
  const material = makeBusMaterial();
  try {
    const cluster = await startTestNatsCluster(size, { config: material.writeConfig, scheme: 'tls' });
    const stopNodes = cluster.stop.bind(cluster);
    return Object.assign(cluster, { bus: material.bus, stop: () => stopNodes().finally(material.remove) });
  } catch (error) {
    material.remove();
    throw error;
  }
}

function makeBusMaterial(): { bus: SecureBus; writeConfig: (layout: TestNatsNodeLayout) => string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secure-nats-'));
  const authority = CertificateAuthority.create(join(dir, 'certs'), { subject: 'svc test CA', days: 2 });
  const natsCertificate = authority.issue({ name: 'nats', hosts: ['localhost', '127.0.0.1'], days: 2 });
  const credentials = generateBusCredentials();
  const administratorKey = newUserNkey();
  const ca = readFileSync(authority.certFile, 'utf8');
  const security = (seed: string): NatsSecurity => ({ auth: { kind: 'nkey', seed }, tls: { ca } });
  const seedOf = (role: BusRole): string => {
    const found = credentials.find((credential) => credential.role === role);
    if (found === undefined) throw new Error(`no credential for ${role}`);
    return found.seed;
  };
  const bus: SecureBus = {
    caFile: authority.certFile,
    credentials,
    envOf: (role) => ({ NATS_NKEY_SEED: seedOf(role), NATS_CA_FILE: authority.certFile }),
    specOf: (role) => ({ security: security(seedOf(role)), role }),
    administrator: { security: security(administratorKey.seed) },
  };
  const writeConfig = (layout: TestNatsNodeLayout): string => {
    mkdirSync(layout.storeDir, { recursive: true });
    const file = join(dir, `${layout.name}.json`);
    const text = natsServerConfig({
      serverName: layout.name,
      host: '127.0.0.1',
      port: layout.clientPort,
      storeDir: layout.storeDir,
      identities: credentials,
      administrators: [administratorKey.publicKey],
      tls: { certFile: natsCertificate.certFile, keyFile: natsCertificate.keyFile, caFile: authority.certFile },
      ...(layout.cluster && {
        cluster: { name: layout.cluster.name, host: '127.0.0.1', port: layout.cluster.routePort, routes: layout.cluster.routes },
        monitor: { host: '127.0.0.1', port: layout.cluster.monitorPort },
      }),
    });
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  return { bus, writeConfig, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
