import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { StsSession } from './sts-sessions';

/** Finds a session the embedded server's STS issued by its access key id. */
export type SessionLookup = (accessKeyId: string) => StsSession | undefined;

/** Who signed: the installation's account, or one of its STS sessions; each signs with its own secret. */
export type SigningIdentity = { kind: 'account'; secretAccessKey: string } | { kind: 'session'; secretAccessKey: string; session: StsSession };

/** Why a key id (and the session token sent with it) does not name an identity; each service words it its own way. */
export type IdentityProblem = 'UnknownAccessKey' | 'WrongToken' | 'ExpiredToken';

/**
 * The identity of an access key id, with the session token a temporary key must come with
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_use-resources.html): a session's key
 * without its token is as unknown as any other key; with another token, or after the session expired, refused.
 */
export function signingIdentity(
  accessKeyId: string,
  headers: IncomingHttpHeaders,
  account: { accessKeyId: string; secretAccessKey: string },
  sessions: SessionLookup | undefined,
  now: Date,
): SigningIdentity | { problem: IdentityProblem } {
  const token = headers['x-amz-security-token'];
  if (accessKeyId === account.accessKeyId) {
    // Without an STS of its own (sessions undefined), a server takes the account's key with any token: the tests' STS
    // double (test-sts.ts, issuedKeys) hands out that very key as its sessions' keys.
    return token === undefined || sessions === undefined ? { kind: 'account', secretAccessKey: account.secretAccessKey } : { problem: 'WrongToken' };
  }
  const session = sessions?.(accessKeyId);
  if (session === undefined || token === undefined) return { problem: 'UnknownAccessKey' };
  if (typeof token !== 'string' || !sameText(token, session.sessionToken)) return { problem: 'WrongToken' };
  if (session.expiration.getTime() <= now.getTime()) return { problem: 'ExpiredToken' };
  return { kind: 'session', secretAccessKey: session.secretAccessKey, session };
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
