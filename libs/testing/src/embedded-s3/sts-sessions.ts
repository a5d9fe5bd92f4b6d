import { assumedRoleArn, newSessionCredentials, type SessionCredentials } from '../sts-query-api';

/** Temporary credentials the embedded server's STS issued, and whose they are. */
export interface StsSession extends SessionCredentials {
  /** `arn:aws:sts::<account>:assumed-role/<role>/<session>`: what GetCallerIdentity answers for the session. */
  assumedRoleArn: string;
}

/** How long an expired session is still told apart from an unknown key (ExpiredToken rather than InvalidAccessKeyId). */
const KEPT_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;

/**
 * The sessions issued by this process, in memory only: a restart of `npm start` forgets them, and restarts the
 * services with it, which assume their roles again.
 */
export class StsSessions {
  private readonly byAccessKeyId = new Map<string, StsSession>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  issue(roleArn: string, roleSessionName: string, seconds: number): StsSession {
    const now = this.now();
    this.forgetLongExpired(now);
    const session: StsSession = { ...newSessionCredentials(seconds, now), assumedRoleArn: assumedRoleArn(roleArn, roleSessionName) };
    this.byAccessKeyId.set(session.accessKeyId, session);
    return session;
  }

  find(accessKeyId: string): StsSession | undefined {
    return this.byAccessKeyId.get(accessKeyId);
  }

  private forgetLongExpired(now: Date): void {
    for (const [accessKeyId, session] of this.byAccessKeyId) {
      if (session.expiration.getTime() + KEPT_AFTER_EXPIRY_MS < now.getTime()) this.byAccessKeyId.delete(accessKeyId);
    }
  }
}
