import type { Pool } from 'pg';
import { isUuid } from '@svc/contracts';
import { inTransaction } from './control-database';

/** A warehouse table one replication writes, claimed for it alone (migration 9). */
export interface WarehouseTableClaim {
  /** The source table, `[schema].[table]`. */
  tableName: string;
  /** `schema.table` in the warehouse, lower case (Redshift folds identifiers). */
  warehouseTable: string;
}

/** A warehouse table another replication already writes. */
export interface ClaimConflict extends WarehouseTableClaim {
  replicationId: string;
  replicationName: string;
  /** The access key that owns the other replication: whether the caller may be told which it is. */
  ownerAccessKeyId: string | null;
}

export interface WarehouseClaimStore {
  /** Warehouse tables among `warehouseTables` of `warehouse` that a replication other than `exceptReplicationId` writes. */
  conflicts(warehouse: string, claims: readonly WarehouseTableClaim[], exceptReplicationId?: string): Promise<ClaimConflict[]>;
  /**
   * Makes `claims` the replication's whole set of warehouse tables in `warehouse`, in one transaction: claims it no
   * longer needs are released, new ones taken where no other replication holds them. Returns those another holds,
   * which the replication must not write.
   */
  claim(replicationId: string, warehouse: string, claims: readonly WarehouseTableClaim[]): Promise<ClaimConflict[]>;
}

interface ConflictRow {
  table_name: string;
  warehouse_table: string;
  replication_id: string;
  replication_name: string;
  owner_access_key_id: string | null;
}

const CONFLICTS_SQL = `
  SELECT c.source_table AS table_name, c.warehouse_table, c.replication_id, r.name AS replication_name,
         r.owner_access_key_id
    FROM warehouse_table_claims c JOIN replications r ON r.id = c.replication_id
   WHERE c.warehouse = $1 AND c.warehouse_table = ANY ($2::text[]) AND c.replication_id IS DISTINCT FROM $3::uuid
   ORDER BY c.warehouse_table`;

/**
 * Who writes which warehouse table. The primary key (warehouse, warehouse_table) is the arbiter: of two replications
 * naming one table, only the first to claim it writes it, whatever order their requests and discoveries run in.
 */
export class WarehouseClaimRepository implements WarehouseClaimStore {
  constructor(private readonly pool: Pool) {}

  async conflicts(warehouse: string, claims: readonly WarehouseTableClaim[], exceptReplicationId?: string): Promise<ClaimConflict[]> {
    if (claims.length === 0) return [];
    const except = exceptReplicationId !== undefined && isUuid(exceptReplicationId) ? exceptReplicationId : null;
    const result = await this.pool.query<ConflictRow>(CONFLICTS_SQL, [warehouse, claims.map((claim) => claim.warehouseTable), except]);
    return withRequestedNames(result.rows.map(toConflict), claims);
  }

  async claim(replicationId: string, warehouse: string, claims: readonly WarehouseTableClaim[]): Promise<ClaimConflict[]> {
    const tables = claims.map((claim) => claim.warehouseTable);
    return inTransaction(this.pool, async (client) => {
      await client.query(
        `DELETE FROM warehouse_table_claims
          WHERE replication_id = $1 AND NOT (warehouse = $2 AND warehouse_table = ANY ($3::text[]))`,
        [replicationId, warehouse, tables],
      );
      await client.query(
        `INSERT INTO warehouse_table_claims (warehouse, warehouse_table, replication_id, source_table)
         SELECT $2, t.warehouse_table, $1, t.source_table FROM unnest($3::text[], $4::text[]) AS t(warehouse_table, source_table)
         ON CONFLICT (warehouse, warehouse_table) DO UPDATE SET source_table = EXCLUDED.source_table
          WHERE warehouse_table_claims.replication_id = EXCLUDED.replication_id`,
        [replicationId, warehouse, tables, claims.map((claim) => claim.tableName)],
      );
      if (tables.length === 0) return [];
      const result = await client.query<ConflictRow>(CONFLICTS_SQL, [warehouse, tables, replicationId]);
      return withRequestedNames(result.rows.map(toConflict), claims);
    });
  }
}

/** A conflict names the caller's own source table (the other replication's may be another with the same warehouse name). */
function withRequestedNames(conflicts: ClaimConflict[], claims: readonly WarehouseTableClaim[]): ClaimConflict[] {
  const requested = new Map(claims.map((claim) => [claim.warehouseTable, claim.tableName]));
  return conflicts.map((conflict) => ({ ...conflict, tableName: requested.get(conflict.warehouseTable) ?? conflict.tableName }));
}

function toConflict(row: ConflictRow): ClaimConflict {
  return {
    tableName: row.table_name,
    warehouseTable: row.warehouse_table,
    replicationId: row.replication_id,
    replicationName: row.replication_name,
    ownerAccessKeyId: row.owner_access_key_id,
  };
}
