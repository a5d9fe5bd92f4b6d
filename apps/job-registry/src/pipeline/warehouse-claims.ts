import { parseTableKey, warehouseTableName, type WarehouseConfig } from '@svc/contracts';
import { DEFAULT_SCHEMAS } from '@svc/connectors';
import { warehouseEndpointOf } from '@svc/engines';
import type { ClaimConflict, DiscoveredTable, WarehouseTableClaim } from '@svc/registry-store';

type WarehouseTarget = Pick<WarehouseConfig, 'url' | 'databaseName' | 'databaseSchema'>;

/**
 * The warehouse schema a replication writes into, as one comparable text: `host:port/database/schema`, lower case
 * (Redshift folds identifiers; host names are case-insensitive), with every loopback spelling folded into one, so
 * that `localhost` and `127.0.0.1` are the same server. Two names of one server that DNS alone joins (a CNAME, a
 * cluster endpoint and its IP) are not recognised as one.
 */
export function warehouseIdentity(warehouse: WarehouseTarget): string {
  const endpoint = warehouseEndpointOf(warehouse.url);
  const server = endpoint === null ? warehouse.url.trim().toLowerCase() : `${hostKey(endpoint.host)}:${endpoint.port}`;
  return `${server}/${warehouse.databaseName.toLowerCase()}/${warehouse.databaseSchema.toLowerCase()}`;
}

function hostKey(host: string): string {
  const lower = host.toLowerCase().replace(/^\[|\]$/g, '');
  const loopback = lower === 'localhost' || lower.endsWith('.localhost') || lower === '::1' || /^(::ffff:)?127\./.test(lower);
  return loopback ? 'loopback' : lower;
}

/** The warehouse table each selected source table is loaded into (DESIGN §6), lower case. */
export function warehouseClaimsOf(warehouse: WarehouseTarget, tables: readonly Pick<DiscoveredTable, 'tableName'>[]): WarehouseTableClaim[] {
  const schema = warehouse.databaseSchema.toLowerCase();
  return tables.map(({ tableName }) => {
    const ref = parseTableKey(tableName);
    return { tableName, warehouseTable: `${schema}.${(ref ? warehouseTableName(ref, DEFAULT_SCHEMAS) : tableName).toLowerCase()}` };
  });
}

/**
 * The field error of a Create or Alter whose tables another replication already writes. The other replication is
 * named only to a caller who may see it (`mayName`); to others it is "another replication", which tells that the
 * table is taken but not by whom.
 */
export function claimConflictMessages(conflicts: readonly ClaimConflict[], mayName: (conflict: ClaimConflict) => boolean): string[] {
  const byReplication = new Map<string, ClaimConflict[]>();
  const ordered = [...conflicts].sort((a, b) => a.warehouseTable.localeCompare(b.warehouseTable));
  for (const conflict of ordered) byReplication.set(conflict.replicationId, [...(byReplication.get(conflict.replicationId) ?? []), conflict]);
  return [...byReplication.values()].map((group) => {
    const [first] = group as [ClaimConflict, ...ClaimConflict[]];
    const other = mayName(first) ? `replication ${first.replicationId} (${first.replicationName})` : 'another replication, which this access key may not see,';
    const tables = group.map((conflict) => `${conflict.tableName} → ${conflict.warehouseTable}`).join(', ');
    return (
      `{TablesToInclude}: ${other} already writes warehouse table${group.length > 1 ? 's' : ''} ${tables}; ` +
      'two replications never write one warehouse table: leave these tables out or choose another Warehouse.DatabaseSchema or database'
    );
  });
}

/**
 * The Failure alert of a table discovery found but another replication already writes. It names the other
 * replication when both belong to one access key; otherwise the registry's log does (an alert is read by keys that
 * may not see the other replication).
 */
export function claimedElsewhereReason(conflict: ClaimConflict, sameOwner: boolean): string {
  const other = sameOwner ? `replication ${conflict.replicationId} (${conflict.replicationName})` : 'another replication';
  return `${conflict.tableName} is not replicated: its warehouse table ${conflict.warehouseTable} is written by ${other}; two replications never write one warehouse table`;
}
