import { nkeys } from 'nats';
import { BUS_ROLES, busPermissionsOf, type BusRole } from './bus-roles';

/** One role's nkey: the server keeps the public key, the service the seed (a secret). */
export interface BusCredential {
  role: BusRole;
  publicKey: string;
  seed: string;
}

/** The part of nats.js's nkeys module used here (its re-export is untyped). */
interface UserKeyPair {
  getPublicKey(): string;
  getSeed(): Uint8Array;
}

/** A new user nkey: the public key (for the server) and its seed (the secret the client signs with). */
export function newUserNkey(): { publicKey: string; seed: string } {
  const pair = (nkeys as { createUser(): UserKeyPair }).createUser();
  return { publicKey: pair.getPublicKey(), seed: new TextDecoder().decode(pair.getSeed()) };
}

/** A fresh nkey for every role. */
export function generateBusCredentials(): BusCredential[] {
  return BUS_ROLES.map((role) => ({ role, ...newUserNkey() }));
}

/** PEM files as the server sees them (paths inside its own file system). */
export interface NatsServerTlsFiles {
  certFile: string;
  keyFile: string;
  caFile: string;
}

export interface NatsServerConfigInput {
  serverName: string;
  host?: string;
  port: number;
  storeDir: string;
  /** Only public keys: the server never needs a seed. */
  identities: readonly Pick<BusCredential, 'role' | 'publicKey'>[];
  /** Public keys of users allowed everything (an operator's inspection tools, a test's observer); none by default. */
  administrators?: readonly string[];
  /** Clients must use TLS (certificate verified by them against caFile); cluster routes too, both ways. */
  tls?: NatsServerTlsFiles;
  cluster?: { name: string; host?: string; port: number; routes: readonly string[] };
  /** The monitoring port (varz, healthz); left closed when absent. */
  monitor?: { host: string; port: number };
}

const TLS_TIMEOUT_SECONDS = 5;

/**
 * A nats-server configuration (JSON, which nats-server reads as its own format) with one nkey user per role and
 * that role's permissions: nobody connects anonymously, and everyone is held to busPermissionsOf. The same text is
 * what compose's servers run and what the bus-security test runs.
 */
export function natsServerConfig(input: NatsServerConfigInput): string {
  const tls = input.tls && { cert_file: input.tls.certFile, key_file: input.tls.keyFile, ca_file: input.tls.caFile, timeout: TLS_TIMEOUT_SECONDS };
  const config = {
    server_name: input.serverName,
    host: input.host ?? '0.0.0.0',
    port: input.port,
    jetstream: { store_dir: input.storeDir },
    ...(input.monitor && { http: `${input.monitor.host}:${input.monitor.port}` }),
    ...(tls && { tls }),
    authorization: {
      users: [
        ...input.identities.map(({ role, publicKey }) => {
          const permissions = busPermissionsOf(role);
          return {
            nkey: publicKey,
            permissions: { publish: { allow: permissions.publish }, subscribe: { allow: permissions.subscribe }, allow_responses: true },
          };
        }),
        ...(input.administrators ?? []).map((publicKey) => ({ nkey: publicKey })),
      ],
    },
    ...(input.cluster && {
      cluster: {
        name: input.cluster.name,
        listen: `${input.cluster.host ?? '0.0.0.0'}:${input.cluster.port}`,
        routes: [...input.cluster.routes],
        // Routes are mutual TLS: a node joins only with a certificate the cluster's CA signed.
        ...(tls && { tls: { ...tls, verify: true } }),
      },
    }),
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
