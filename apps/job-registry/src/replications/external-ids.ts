import type { ExternalIdIssuer } from '@svc/crypto';
import type { ReplicationConfig, WarehouseConfig } from '@svc/contracts';

/**
 * A Create's warehouse with the ExternalId the service issues it (AccessType=IAMRole), for the key that creates it.
 * Whatever externalId the value held is dropped: a caller never chooses it (the API refuses the field anyway).
 */
export function withIssuedExternalId<W extends WarehouseConfig>(warehouse: W, ownerAccessKeyId: string, issuer: ExternalIdIssuer): W {
  const rest = withoutExternalId(warehouse);
  if (rest.accessType !== 'IAMRole' || !rest.accountId || !rest.roleName) return rest;
  return { ...rest, externalId: issuer.issue({ ownerAccessKeyId, accountId: rest.accountId, roleName: rest.roleName }) };
}

/**
 * An Alter's warehouse: the stored ExternalId stays while the role stays (even when the master key it was derived
 * under has since been rotated: the customer's trust policy names it); a new AccountId or RoleName, or a switch to
 * IAMRole, gets a new one; AccessKey has none.
 */
export function externalIdAfterAlter(
  before: ReplicationConfig['warehouse'],
  after: ReplicationConfig['warehouse'],
  ownerAccessKeyId: string,
  issuer: ExternalIdIssuer,
): ReplicationConfig['warehouse'] {
  const sameRole =
    before.accessType === 'IAMRole' && after.accessType === 'IAMRole' && before.accountId === after.accountId && before.roleName === after.roleName;
  if (sameRole && before.externalId !== undefined) return { ...withoutExternalId(after), externalId: before.externalId };
  return withIssuedExternalId(after, ownerAccessKeyId, issuer);
}

/** The configuration as a request could have given it: the API model knows no ExternalId. */
export function withoutIssuedFields(config: ReplicationConfig): ReplicationConfig {
  return { ...config, warehouse: withoutExternalId(config.warehouse) };
}

function withoutExternalId<W extends WarehouseConfig>(warehouse: W): W {
  const copy = { ...warehouse };
  delete copy.externalId;
  return copy;
}
