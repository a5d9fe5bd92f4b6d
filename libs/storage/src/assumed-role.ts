import { cannotReachText, iamRoleArn } from '@svc/contracts';
import { S3_UNREACHABLE_REASON, s3FailureReason } from './s3-failure-reason';

/** Temporary credentials of an assumed role; `expiration` lets the S3 client ask again before they lapse. */
export interface RoleCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** The customer's role a replication's S3 work runs as (AccessType=IAMRole). */
export interface RoleToAssume {
  accountId: string;
  roleName: string;
  /** Issued by the service per owner and role (the confused-deputy protection); the role's trust policy requires it. */
  externalId: string;
  /** The bucket's region: it names the partition of the role's ARN and the STS region asked. */
  region: string;
}

/** One sts:AssumeRole call (https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html). */
export interface AssumeRoleInput {
  roleArn: string;
  externalId: string;
  roleSessionName: string;
  durationSeconds: number;
  region: string;
}

export type AssumeRoleCall = (input: AssumeRoleInput) => Promise<RoleCredentials>;

/** STS refused or could not be asked; the message names the role and the reason, never a credential. */
export class RoleAssumptionError extends Error {
  override readonly name = 'RoleAssumptionError';
  /** STS's HTTP status, in the AWS SDK's error shape, so that failure handling reads it as it reads S3's. */
  readonly $metadata: { httpStatusCode?: number };

  constructor(
    readonly roleArn: string,
    readonly externalId: string,
    /** STS's error code (AccessDenied, RegionDisabledException, …) or a network failure's code. */
    readonly code: string,
    /** Secret-free, as s3FailureReason words it ('access denied', 'cannot reach STS (…)', …). */
    readonly reason: string,
    httpStatusCode?: number,
  ) {
    super(`cannot assume ${roleArn}: ${reason}`);
    this.$metadata = httpStatusCode === undefined ? {} : { httpStatusCode };
  }

  /** The trust policy did not let the service in (wrong principal, wrong or missing ExternalId, or no such role). */
  get trustRefused(): boolean {
    return this.code === 'AccessDenied';
  }
}

export const DEFAULT_ROLE_SESSION_SECONDS = 3600;
/** How long one STS call may take before it counts as failed. */
export const STS_REQUEST_TIMEOUT_MS = 10_000;
/** Ask again this long before the credentials expire (the SDK's own margin is five minutes). */
export const DEFAULT_REFRESH_MARGIN_MS = 10 * 60_000;
/** When a renewal fails, a session valid at least this much longer is still handed out. */
const STILL_USABLE_MS = 60_000;

const SESSION_NAME_PREFIX = 'svc-';
const MAX_SESSION_NAME = 64;

/**
 * RoleSessionName of a replication's session: `svc-` and its ExternalId's own characters, within STS's rule of
 * 2-64 characters of [\w+=,.@-]. CloudTrail records it, so the customer can tell the service's sessions apart.
 */
export function roleSessionName(externalId: string): string {
  const name = `${SESSION_NAME_PREFIX}${externalId.replace(/[^\w+=,.@-]/g, '-')}`;
  return name.slice(0, MAX_SESSION_NAME);
}

export interface AssumedRoleOptions {
  now?: () => number;
  durationSeconds?: number;
  refreshMarginMs?: number;
}

/**
 * Credentials of assumed roles, one session per (role, ExternalId) shared by every S3 client of this process and
 * renewed `refreshMarginMs` before it expires. Concurrent callers share one STS call; a failed call is not kept (the
 * next caller asks again), but a session still valid for a minute or more outlives a failed renewal.
 */
export class AssumedRoleCredentials {
  private readonly sessions = new Map<string, Promise<RoleCredentials>>();
  private readonly now: () => number;
  private readonly durationSeconds: number;
  private readonly refreshMarginMs: number;

  constructor(
    private readonly assume: AssumeRoleCall,
    options: AssumedRoleOptions = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.durationSeconds = options.durationSeconds ?? DEFAULT_ROLE_SESSION_SECONDS;
    this.refreshMarginMs = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  }

  /** The SDK's credential provider shape: the S3 client calls it again once `expiration` comes near. */
  providerFor(role: RoleToAssume): () => Promise<RoleCredentials> {
    return () => this.credentialsOf(role);
  }

  async credentialsOf(role: RoleToAssume): Promise<RoleCredentials> {
    const roleArn = iamRoleArn(role, role.region);
    const key = JSON.stringify([roleArn, role.externalId, role.region]);
    const cached = this.sessions.get(key);
    if (cached === undefined) return this.renew(key, roleArn, role, null);
    const credentials = await cached.catch(() => null);
    if (credentials !== null && credentials.expiration.getTime() - this.now() > this.refreshMarginMs) return credentials;
    // Another caller may have started the renewal while this one waited.
    if (this.sessions.get(key) !== cached) return this.credentialsOf(role);
    return this.renew(key, roleArn, role, credentials);
  }

  /** One STS call shared by concurrent callers; while STS fails, a session that is still valid a while is kept. */
  private renew(key: string, roleArn: string, role: RoleToAssume, previous: RoleCredentials | null): Promise<RoleCredentials> {
    const pending = this.request(roleArn, role).catch((error: unknown) => {
      if (previous !== null && previous.expiration.getTime() - this.now() > STILL_USABLE_MS) return previous;
      throw error;
    });
    this.sessions.set(key, pending);
    pending.catch(() => {
      if (this.sessions.get(key) === pending) this.sessions.delete(key);
    });
    return pending;
  }

  private async request(roleArn: string, role: RoleToAssume): Promise<RoleCredentials> {
    try {
      return await this.assume({
        roleArn,
        externalId: role.externalId,
        roleSessionName: roleSessionName(role.externalId),
        durationSeconds: this.durationSeconds,
        region: role.region,
      });
    } catch (error) {
      if (error instanceof RoleAssumptionError) throw error;
      throw new RoleAssumptionError(roleArn, role.externalId, errorCode(error), stsFailureReason(error), httpStatusOf(error));
    }
  }
}

/** As s3FailureReason words it, except that the endpoint not reached is STS's, not the bucket's. */
function stsFailureReason(error: unknown): string {
  const reason = s3FailureReason(error);
  return reason === S3_UNREACHABLE_REASON ? cannotReachText('STS') : reason;
}

function errorCode(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown';
  const { name, code } = error as { name?: unknown; code?: unknown };
  if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  return typeof name === 'string' && /^[A-Za-z]+$/.test(name) ? name : 'unknown';
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}
