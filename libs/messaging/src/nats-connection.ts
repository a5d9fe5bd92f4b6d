import { connect, credsAuthenticator, nkeyAuthenticator, usernamePasswordAuthenticator, type ConnectionOptions, type NatsConnection } from 'nats';
import type { NatsSecurity } from '@svc/config';
import { inboxPrefixOf, type BusRole } from './bus-roles';

export interface NatsConnectionSpec {
  /** Credentials and TLS as the service read them at start; none on an open development server. */
  security?: NatsSecurity;
  /** The role the credentials belong to: replies come to that role's own inboxes, the only ones it may read. */
  role?: BusRole;
}

/** The servers of `NATS_URL`-style text: one URL, or a cluster's URLs separated by commas. */
export function natsServerList(servers: string | readonly string[]): string[] {
  const list = typeof servers === 'string' ? servers.split(',') : [...servers];
  return list.map((server) => server.trim()).filter((server) => server !== '');
}

/**
 * nats.js connection options of a service: reconnect for ever, to whichever server of the list answers (a cluster's
 * nodes), authenticated and over verified TLS as configured. Also the options of Nest's NATS transport.
 */
export function natsConnectionOptions(servers: string | readonly string[], name: string, spec: NatsConnectionSpec = {}): ConnectionOptions {
  const { auth, tls } = spec.security ?? {};
  const encoder = new TextEncoder();
  const authenticator =
    auth === undefined
      ? undefined
      : auth.kind === 'user-password'
        ? usernamePasswordAuthenticator(auth.user, auth.password)
        : auth.kind === 'nkey'
          ? nkeyAuthenticator(encoder.encode(auth.seed))
          : credsAuthenticator(encoder.encode(auth.creds));
  return {
    servers: natsServerList(servers),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    ...(authenticator !== undefined && { authenticator }),
    ...(tls !== undefined && { tls: { ...tls } }),
    ...(spec.role !== undefined && { inboxPrefix: inboxPrefixOf(spec.role) }),
  };
}

export async function connectNats(servers: string | readonly string[], name: string, spec: NatsConnectionSpec = {}): Promise<NatsConnection> {
  return connect(natsConnectionOptions(servers, name, spec));
}
