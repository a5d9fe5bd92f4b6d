import type { Pool } from 'pg';
import type { ExternalIdBinding } from '@svc/crypto';

/**
 * Gives every IAMRole replication stored before ExternalIds existed the one its owner would get at Create now (a
 * replication without a recorded owner: bound to its own id, as Alter does). The registry runs this at start; the
 * customer must then add that ExternalId to the role's trust policy (Describe shows it). Idempotent; the
 * configuration version stays, as no field a caller gave changed. Returns how many were given one.
 */
export async function issueMissingExternalIds(pool: Pool, issuer: { issue(binding: ExternalIdBinding): string }): Promise<number> {
  const missing = await pool.query<{ id: string; owner_access_key_id: string | null; account_id: string | null; role_name: string | null }>(
    `SELECT id, owner_access_key_id, config->'warehouse'->>'accountId' AS account_id, config->'warehouse'->>'roleName' AS role_name
       FROM replications
      WHERE config->'warehouse'->>'accessType' = 'IAMRole' AND NOT (config->'warehouse' ? 'externalId')`,
  );
  let issued = 0;
  for (const row of missing.rows) {
    if (!row.account_id || !row.role_name) continue;
    const externalId = issuer.issue({ ownerAccessKeyId: row.owner_access_key_id ?? row.id, accountId: row.account_id, roleName: row.role_name });
    const updated = await pool.query(
      `UPDATE replications SET config = jsonb_set(config, '{warehouse,externalId}', to_jsonb($2::text))
        WHERE id = $1 AND config->'warehouse'->>'accessType' = 'IAMRole' AND NOT (config->'warehouse' ? 'externalId')`,
      [row.id, externalId],
    );
    issued += updated.rowCount ?? 0;
  }
  return issued;
}
