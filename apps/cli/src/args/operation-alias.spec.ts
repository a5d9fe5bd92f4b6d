import { OPERATIONS } from '@svc/contracts';
import { OPERATION_ALIASES, resolveOperation } from './operation-alias';

describe('resolveOperation', () => {
  it.each([
    ['create', 'CreateWarehouseReplication'],
    ['alter', 'AlterWarehouseReplication'],
    ['describe', 'DescribeWarehouseReplication'],
    ['list', 'ListWarehouseReplications'],
    ['delete', 'DeleteWarehouseReplication'],
    ['stop-service', 'StopReplicationService'],
    ['start', 'StartReplication'],
    ['alter-configuration', 'AlterConfiguration'],
    ['metrics', 'GetReplicationMetrics'],
    ['validate', 'StartReplicationValidation'],
    ['validation', 'DescribeReplicationValidation'],
    ['repair', 'RepairReplication'],
  ])('maps the alias %s to %s', (alias, operation) => {
    expect(resolveOperation(alias)).toBe(operation);
  });

  it('accepts every API name as written and in any letter case', () => {
    for (const operation of OPERATIONS) {
      expect(resolveOperation(operation)).toBe(operation);
      expect(resolveOperation(operation.toLowerCase())).toBe(operation);
    }
  });

  it('stops one replication with stop, as start starts one; the whole service only with stop-service', () => {
    expect(resolveOperation('stop')).toBe('StopReplication');
    expect(resolveOperation('stop-service')).toBe('StopReplicationService');
  });

  it('has an alias for every operation', () => {
    expect(new Set(Object.values(OPERATION_ALIASES))).toEqual(new Set(OPERATIONS));
  });

  it('returns undefined for anything else', () => {
    expect(resolveOperation('CreateReplication')).toBeUndefined();
    expect(resolveOperation('stop-all')).toBeUndefined();
    expect(resolveOperation('')).toBeUndefined();
  });
});
