import { createHmac, hkdfSync } from 'node:crypto';

/** What an ExternalId is issued for: the access key that owns the replication and the role it names. */
export interface ExternalIdBinding {
  ownerAccessKeyId: string;
  accountId: string;
  roleName: string;
}

const PREFIX = 'svc-';
const KEY_INFO = 'svc iam-role external-id v1';

/**
 * ExternalIds for AccessType=IAMRole (https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html): an
 * HMAC over (owner key, AccountId, RoleName) under a key derived from the master key. The same key naming the same
 * role always gets the same id, so a customer can learn it from a refused Create and trust it before retrying; another
 * access key naming that role gets another id, which the role does not trust. The id is no secret (AWS says so), but
 * nobody can choose it: only the registry holds the master key.
 */
export class ExternalIdIssuer {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), KEY_INFO, 32));
  }

  /** `svc-` and 32 hex digits: within STS's 2-1224 characters of [\w+=,.@:/-]. */
  issue(binding: ExternalIdBinding): string {
    const mac = createHmac('sha256', this.key).update(JSON.stringify([binding.ownerAccessKeyId, binding.accountId, binding.roleName]));
    return `${PREFIX}${mac.digest('hex').slice(0, 32)}`;
  }
}
