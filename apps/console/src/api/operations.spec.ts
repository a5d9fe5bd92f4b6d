import { ACCESS_KEY_OPERATIONS, OPERATIONS } from '@svc/contracts/browser';
import { ACTION_OPERATIONS, CONSOLE_OPERATIONS } from './operations.js';

describe('the operations the console calls', () => {
  it('are the API operations, the access keys aside (managed with svc keys; the console has no keys page)', () => {
    const keyOperations: readonly string[] = ACCESS_KEY_OPERATIONS;
    expect(CONSOLE_OPERATIONS).toEqual(OPERATIONS.filter((operation) => !keyOperations.includes(operation)));
    expect(CONSOLE_OPERATIONS).toEqual(expect.arrayContaining(['DescribeWarehouseReplication', 'GetReplicationMetrics', ...ACTION_OPERATIONS]));
    expect(CONSOLE_OPERATIONS.filter((operation) => keyOperations.includes(operation))).toEqual([]);
  });
});
