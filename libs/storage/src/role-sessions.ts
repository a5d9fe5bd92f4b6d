import { AssumedRoleCredentials } from './assumed-role';
import type { S3Settings } from './s3-settings';
import { StsClients } from './sts-client';

/** What IAMRole access needs: STS asked with the service's identity, and the sessions it handed out. */
export interface RoleSessions {
  sts: StsClients;
  credentials: AssumedRoleCredentials;
}

export function createRoleSessions(settings: S3Settings): RoleSessions {
  const sts = new StsClients(settings);
  return { sts, credentials: new AssumedRoleCredentials(sts.assumeRole) };
}

const shared = new WeakMap<S3Settings, RoleSessions>();

/**
 * The sessions of one settings object (a service's configuration, read once at start): every S3 client made with
 * it, probe or worker, shares one session per (role, ExternalId) instead of asking STS each time.
 */
export function roleSessionsOf(settings: S3Settings): RoleSessions {
  let sessions = shared.get(settings);
  if (sessions === undefined) {
    sessions = createRoleSessions(settings);
    shared.set(settings, sessions);
  }
  return sessions;
}
