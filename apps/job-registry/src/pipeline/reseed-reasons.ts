import type { ReplicationConfig } from '@svc/contracts';

const WAREHOUSE_TARGET_FIELDS = ['warehouse.url', 'warehouse.databaseName', 'warehouse.databaseSchema'];

/**
 * Why an Alter requires every table to be seeded again, or null. The reason is shown in Describe (table
 * last error) and raised as a Reseed alert, so nobody wonders why their warehouse is being rewritten.
 */
export function reseedReason(before: ReplicationConfig, after: ReplicationConfig, changedFields: string[]): string | null {
  const reasons: string[] = [];
  if (changedFields.includes('warehouse.scdType')) {
    reasons.push(
      `ScdType changed from ${before.warehouse.scdType} to ${after.warehouse.scdType}: the warehouse tables are rebuilt from a new seed ` +
        '(each previous table is kept, renamed <table>_<old type>_<UTC timestamp>)',
    );
  }
  const target = WAREHOUSE_TARGET_FIELDS.filter((field) => changedFields.includes(field));
  if (target.length > 0) {
    reasons.push(`the warehouse target changed (${target.join(', ')}): every table is seeded into the new target`);
  }
  if (changedFields.includes('schemaReplication') && after.schemaReplication && !before.schemaReplication) {
    reasons.push('SchemaReplication was turned on: tables are reseeded so that columns added meanwhile carry their values');
  }
  return reasons.length === 0 ? null : reasons.join('; ');
}
