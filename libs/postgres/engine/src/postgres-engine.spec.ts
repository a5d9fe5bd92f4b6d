import { postgresWarehouseOptions } from './postgres-engine';

const CONTEXT = { bareNameSchemas: new Set(['public']) };

describe('postgresWarehouseOptions', () => {
  it.each([
    [1, 60_000],
    [60, 3_600_000],
    [1440, 86_400_000],
  ])('Warehouse.TimeoutInMins %i bounds every warehouse statement at %i ms', (timeoutInMins, statementTimeoutMs) => {
    expect(postgresWarehouseOptions({ warehouse: { timeoutInMins }, rebuildIndexes: false }, CONTEXT).statementTimeoutMs).toBe(statementTimeoutMs);
  });

  it.each([true, false])('passes RebuildIndexes %s on', (rebuildIndexes) => {
    expect(postgresWarehouseOptions({ warehouse: { timeoutInMins: 5 }, rebuildIndexes }, CONTEXT)).toEqual({ statementTimeoutMs: 300_000, rebuildIndexes, bareNameSchemas: CONTEXT.bareNameSchemas });
  });
});
