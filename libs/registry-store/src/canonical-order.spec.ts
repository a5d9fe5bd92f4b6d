import { inCanonicalOrder } from './canonical-order';

describe('inCanonicalOrder', () => {
  it('orders top-level and group keys as the seed lists them, keeping every value', () => {
    const scrambled = {
      warehouse: { url: 'u', password: 'p', accessType: 'IAMRole', timeoutInMins: 60 },
      isContinuous: true,
      source: { changeTrackingRetentionPeriod: '2 Days', connectionString: 'c', encryptDataInTransit: false },
      parallelTablesLimit: 4,
      replicationName: 'n',
      tablesToInclude: ['[a].[b]'],
    };
    const result = inCanonicalOrder(scrambled as never) as unknown as Record<string, Record<string, unknown>>;
    expect(Object.keys(result)).toEqual(['replicationName', 'parallelTablesLimit', 'source', 'warehouse', 'tablesToInclude', 'isContinuous']);
    expect(Object.keys(result['source'] ?? {})).toEqual(['connectionString', 'encryptDataInTransit', 'changeTrackingRetentionPeriod']);
    expect(Object.keys(result['warehouse'] ?? {})).toEqual(['accessType', 'url', 'password', 'timeoutInMins']);
    expect(result).toEqual(scrambled);
    expect(result['tablesToInclude']).toEqual(['[a].[b]']);
  });
});
