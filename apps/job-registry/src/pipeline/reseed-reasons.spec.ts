import type { ReplicationConfig } from '@svc/contracts';
import { reseedReason } from './reseed-reasons';

const base = {
  schemaReplication: true,
  warehouse: { scdType: 'Type1', url: 'postgres://w:5432', databaseName: 'dw', databaseSchema: 'public' },
} as unknown as ReplicationConfig;

function changed(patch: { schemaReplication?: boolean; warehouse?: Partial<ReplicationConfig['warehouse']> }): ReplicationConfig {
  return { ...base, ...patch, warehouse: { ...base.warehouse, ...patch.warehouse } };
}

describe('reseedReason', () => {
  it('explains an ScdType change', () => {
    expect(reseedReason(base, changed({ warehouse: { scdType: 'Type2' } }), ['warehouse.scdType'])).toMatch(/^ScdType changed from Type1 to Type2/);
  });

  it.each(['warehouse.url', 'warehouse.databaseName', 'warehouse.databaseSchema'])('reseeds into a new target when %s changes', (field) => {
    expect(reseedReason(base, base, [field])).toContain(field);
  });

  it('reseeds when schema replication is turned back on, not when it is turned off', () => {
    const off = changed({ schemaReplication: false });
    expect(reseedReason(off, base, ['schemaReplication'])).toMatch(/SchemaReplication was turned on/);
    expect(reseedReason(base, off, ['schemaReplication'])).toBeNull();
  });

  it.each([
    ['warehouse.bucketName'],
    ['warehouse.accessKey'],
    ['warehouse.password'],
    ['source.connectionString'],
    ['changeTrackingBatchLimit'],
    ['parallelTablesLimit'],
    ['replicationName'],
    ['tablesToInclude'],
  ])('needs no reseed for %s (new files go to the new place, new connections are opened)', (field) => {
    expect(reseedReason(base, base, [field])).toBeNull();
  });
});
