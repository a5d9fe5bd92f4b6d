import { readFileSync } from 'node:fs';
import type { EnvReader } from './env-reader';

/** How a service proves who it is to NATS: exactly one of these, or none on an open development server. */
export type NatsAuth =
  | { kind: 'user-password'; user: string; password: string }
  | { kind: 'nkey'; seed: string }
  /** A decentralised-auth credentials file (JWT and seed), its text read once at start. */
  | { kind: 'creds'; creds: string };

/** TLS towards NATS: the CA that signed the servers' certificates and, for mutual TLS, a client certificate. PEM text. */
export interface NatsTls {
  ca?: string;
  cert?: string;
  key?: string;
}

export interface NatsSecurity {
  auth?: NatsAuth;
  tls?: NatsTls;
}

/** A user nkey's seed: 'SU' and 56 more base32 characters. */
const USER_SEED = /^SU[A-Z2-7]{56}$/;

/**
 * NATS credentials and TLS files, read once at start (files included, so a missing one stops the boot).
 * No value is ever echoed in a problem: passwords, seeds and credentials files are secrets.
 */
export function readNatsSecurity(env: EnvReader, servers: readonly string[]): NatsSecurity {
  const auth = readAuth(env);
  const tls = readTls(env, servers);
  return { ...(auth !== undefined && { auth }), ...(tls !== undefined && { tls }) };
}

function readAuth(env: EnvReader): NatsAuth | undefined {
  const credsFile = env.optionalString('NATS_CREDS');
  const user = env.optionalString('NATS_USER');
  const password = env.optionalString('NATS_PASSWORD');
  const seed = env.optionalString('NATS_NKEY_SEED');
  const chosen = [credsFile !== undefined && 'NATS_CREDS', (user ?? password) !== undefined && 'NATS_USER/NATS_PASSWORD', seed !== undefined && 'NATS_NKEY_SEED'].filter(
    (name): name is string => name !== false,
  );
  if (chosen.length > 1) {
    env.problem(`NATS_CREDS, NATS_USER/NATS_PASSWORD, NATS_NKEY_SEED: set only one way to authenticate, got ${chosen.join(' and ')}`);
    return undefined;
  }
  if (credsFile !== undefined) {
    const creds = readText(env, 'NATS_CREDS', credsFile);
    if (creds !== undefined && !/-----BEGIN NATS USER JWT-----/.test(creds)) env.problem('NATS_CREDS: is not a NATS credentials file (no user JWT in it)');
    return creds === undefined ? undefined : { kind: 'creds', creds };
  }
  if (user !== undefined || password !== undefined) {
    if (user === undefined) env.problem('NATS_USER: is required with NATS_PASSWORD');
    if (password === undefined) env.problem('NATS_PASSWORD: is required with NATS_USER');
    return user !== undefined && password !== undefined ? { kind: 'user-password', user, password } : undefined;
  }
  if (seed !== undefined) {
    if (!USER_SEED.test(seed)) {
      env.problem("NATS_NKEY_SEED: must be a user nkey seed (58 characters starting with 'SU')");
      return undefined;
    }
    return { kind: 'nkey', seed };
  }
  return undefined;
}

function readTls(env: EnvReader, servers: readonly string[]): NatsTls | undefined {
  const caFile = env.optionalString('NATS_CA_FILE');
  const certFile = env.optionalString('NATS_CERT_FILE');
  const keyFile = env.optionalString('NATS_KEY_FILE');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    env.problem(`${certFile === undefined ? 'NATS_CERT_FILE' : 'NATS_KEY_FILE'}: is required with ${certFile === undefined ? 'NATS_KEY_FILE' : 'NATS_CERT_FILE'} (a client certificate needs both)`);
  }
  const wantsTls = servers.some((server) => /^(tls|wss):/i.test(server)) || caFile !== undefined || certFile !== undefined;
  if (!wantsTls) return undefined;
  const ca = caFile === undefined ? undefined : readText(env, 'NATS_CA_FILE', caFile, /-----BEGIN CERTIFICATE-----/);
  const cert = certFile === undefined ? undefined : readText(env, 'NATS_CERT_FILE', certFile, /-----BEGIN CERTIFICATE-----/);
  const key = keyFile === undefined ? undefined : readText(env, 'NATS_KEY_FILE', keyFile, /-----BEGIN [A-Z ]*PRIVATE KEY-----/);
  return { ...(ca !== undefined && { ca }), ...(cert !== undefined && key !== undefined && { cert, key }) };
}

/** A file's text; a problem (naming the setting, not the contents) when it cannot be read or is not the expected PEM. */
function readText(env: EnvReader, name: string, path: string, pem?: RegExp): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    env.problem(`${name}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    return undefined;
  }
  if (pem !== undefined && !pem.test(text)) {
    env.problem(`${name}: is not a PEM file of the expected kind`);
    return undefined;
  }
  return text;
}
