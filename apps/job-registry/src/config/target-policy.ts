import type { TargetPolicy } from '@svc/connectors';
import type { RegistryConfig } from './registry-config';

/** The host policy of Create and Alter: the control database named by DATABASE_URL, and whether loopback is allowed. */
export function targetPolicyOf(config: Pick<RegistryConfig, 'databaseUrl' | 'allowLoopbackTargets'>): TargetPolicy {
  const url = new URL(config.databaseUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
  return {
    // Decoded as pg reads it: `%2Fvar%2Frun%2Fpostgresql` is a Unix socket, which the policy takes as this machine.
    controlDatabase: { host: decodeURIComponent(url.hostname).replace(/^\[|\]$/g, '') || 'localhost', port: Number(url.port || 5432), database },
    allowLoopback: config.allowLoopbackTargets,
  };
}
