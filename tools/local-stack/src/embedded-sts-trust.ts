import type { Pool } from 'pg';
import { EnvReader } from '@svc/config';
import { ExternalIdIssuer, MasterKeyError, parseMasterKey } from '@svc/crypto';
import type { RoleTrust } from '@svc/testing';

/** The access key ids a replication's ExternalId may have been issued to. */
export type OwnerKeyIds = () => Promise<string[]>;

/**
 * The trust policy of every role under `npm start`: a role trusts the installation's account with the ExternalId the
 * registry issues for it (ExternalIdIssuer: the owning access key, AccountId and RoleName under the master key), as a
 * customer's role trusts the service once its trust policy names that ExternalId
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_create_for-user_externalid.html). Keys of before a
 * rotation count too: a replication keeps its ExternalId across one.
 */
export function externalIdTrust(masterKeys: Buffer[], ownerKeyIds: OwnerKeyIds): RoleTrust {
  const issuers = masterKeys.map((key) => new ExternalIdIssuer(key));
  const issuedFor = (owners: string[], accountId: string, roleName: string): Set<string> =>
    new Set(owners.flatMap((ownerAccessKeyId) => issuers.map((issuer) => issuer.issue({ ownerAccessKeyId, accountId, roleName }))));
  return async ({ accountId, roleName }, externalId) => {
    if (externalId === undefined || issuers.length === 0) return false;
    return issuedFor(await ownerKeyIds(), accountId, roleName).has(externalId);
  };
}

/** How long the keys read stay good for an ExternalId they match; a miss always reads them again (a key made a moment ago). */
const OWNER_KEYS_FRESH_MS = 5000;

/**
 * The owners of ExternalIds in the control database: every access key (a disabled one's replications keep their
 * role's trust, as a customer's trust policy does) and the owners of replications whose key is gone. Empty while the
 * registry has not created its tables yet.
 */
export function controlDatabaseOwners(pool: Pick<Pool, 'query'>, now: () => number = Date.now): { owners: OwnerKeyIds; refresh: OwnerKeyIds } {
  let cached: { at: number; ids: string[] } | undefined;
  const refresh = async (): Promise<string[]> => {
    const result = await pool
      .query<{ id: string }>('SELECT access_key_id AS id FROM access_keys UNION SELECT owner_access_key_id FROM replications WHERE owner_access_key_id IS NOT NULL')
      .catch((error: unknown) => {
        if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return { rows: [] };
        throw error;
      });
    cached = { at: now(), ids: result.rows.map((row) => row.id) };
    return cached.ids;
  };
  const owners = async (): Promise<string[]> => (cached !== undefined && now() - cached.at < OWNER_KEYS_FRESH_MS ? cached.ids : refresh());
  return { owners, refresh };
}

/** PostgreSQL's SQLSTATE for a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

/** A trust that reads the owners from the cache first and, when that finds no match, from the database. */
export function freshOnMiss(masterKeys: Buffer[], source: { owners: OwnerKeyIds; refresh: OwnerKeyIds }): RoleTrust {
  const cachedTrust = externalIdTrust(masterKeys, source.owners);
  const freshTrust = externalIdTrust(masterKeys, source.refresh);
  return async (role, externalId) => (await cachedTrust(role, externalId)) || freshTrust(role, externalId);
}

export type TrustKeys = { keys: Buffer[] } | { problem: string };

/**
 * The master keys the registry of this stack issues ExternalIds under: SVC_MASTER_KEY (or its _FILE) and
 * SVC_MASTER_KEY_PREVIOUS, read as the registry reads them. A key held by KMS cannot be read here: no role trusts.
 */
export function trustMasterKeys(env: Record<string, string | undefined>): TrustKeys {
  if (env['SVC_MASTER_KEY_KMS_CIPHERTEXT']) {
    return { problem: 'SVC_MASTER_KEY_KMS_CIPHERTEXT is set: the embedded STS cannot read a master key KMS holds, so it lets no IAMRole replication assume its role' };
  }
  const reader = new EnvReader(env);
  const texts = [reader.optionalString('SVC_MASTER_KEY') ?? '', ...(reader.optionalString('SVC_MASTER_KEY_PREVIOUS') ?? '').split(',')];
  const keys: Buffer[] = [];
  for (const text of texts.map((entry) => entry.trim()).filter((entry) => entry !== '')) {
    try {
      keys.push(parseMasterKey(text));
    } catch (error) {
      // The registry refuses to start with it and names the setting.
      if (!(error instanceof MasterKeyError)) throw error;
    }
  }
  return keys.length > 0 ? { keys } : { problem: 'no usable SVC_MASTER_KEY: the embedded STS lets no IAMRole replication assume its role' };
}
