import type { ClientBase } from 'pg';
import { createShadowSql } from './table-ddl';
import { SystemColumns, type TableLayout } from './table-layout';

const RECREATE_SAVEPOINT = 'svc_sys_recreate_shadow';
const DROP_SAVEPOINT = 'svc_sys_drop_shadow';
/** A user's object depends on the shadow, or the shadow is not the service's to drop: it is only truncated. */
const CANNOT_DROP = new Set(['2BP01', '42501']);

/**
 * Part 0 of a seed: empties the shadow for the new seed. A shadow that carries the per-row seed stamp
 * column `svc_sys_seed_id` of earlier versions, or any dropped column, is dropped and created anew instead
 * of truncated: it is emptied either way, and a dropped column would otherwise go with a swap into the
 * target (DROP COLUMN leaves the column's bytes in every row until the row is rewritten). When it cannot
 * be dropped it is truncated and keeps the column, which nothing reads; such a shadow is merged, never
 * swapped in (see SWAPPABLE_SQL).
 */
export async function startSeedShadow(client: ClientBase, layout: TableLayout): Promise<void> {
  // A shadow lives only while a seed runs (dropShadow): the seed makes it, with the columns it loads.
  if (!(await shadowExists(client, layout))) {
    await client.query(createShadowSql(layout));
    return;
  }
  if (await hasLegacyColumns(client, layout)) {
    await client.query(`SAVEPOINT ${RECREATE_SAVEPOINT}`);
    try {
      await client.query(`DROP TABLE ${layout.qualifiedShadow}`);
      await client.query(createShadowSql(layout));
      await client.query(`RELEASE SAVEPOINT ${RECREATE_SAVEPOINT}`);
      return;
    } catch (error: unknown) {
      if (!CANNOT_DROP.has(String((error as { code?: unknown }).code))) throw error;
      await client.query(`ROLLBACK TO SAVEPOINT ${RECREATE_SAVEPOINT}`);
    }
  }
  await client.query(`TRUNCATE ${layout.qualifiedShadow}`);
}

/**
 * A completed seed's shadow goes: between seeds the user's schema holds no `svc_seed_*` table (issue 40). One a user's
 * object depends on (or that the login may not drop) is emptied instead, and stays.
 */
export async function dropShadow(client: ClientBase, layout: TableLayout): Promise<void> {
  await client.query(`SAVEPOINT ${DROP_SAVEPOINT}`);
  try {
    await client.query(`DROP TABLE ${layout.qualifiedShadow}`);
    await client.query(`RELEASE SAVEPOINT ${DROP_SAVEPOINT}`);
  } catch (error: unknown) {
    if (!CANNOT_DROP.has(String((error as { code?: unknown }).code))) throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${DROP_SAVEPOINT}`);
    await client.query(`TRUNCATE ${layout.qualifiedShadow}`);
  }
}

async function shadowExists(client: ClientBase, layout: TableLayout): Promise<boolean> {
  const result = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [layout.qualifiedShadow]);
  return result.rows[0]?.found === true;
}

async function hasLegacyColumns(client: ClientBase, layout: TableLayout): Promise<boolean> {
  const result = await client.query<{ legacy: boolean }>(
    `SELECT EXISTS (
  SELECT 1 FROM pg_catalog.pg_attribute AS a
  WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND (a.attisdropped OR a.attname = $2)
) AS legacy`,
    [layout.qualifiedShadow, SystemColumns.seedId],
  );
  return result.rows[0]?.legacy === true;
}
