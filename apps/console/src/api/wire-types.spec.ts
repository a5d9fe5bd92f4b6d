import { ACCESS_KEY_OPERATIONS, OPERATIONS, SECRET_FIELD_NAMES as CONTRACT_SECRET_FIELDS, SECRET_MASK as CONTRACT_SECRET_MASK, RETENTION_PERIODS as CONTRACT_RETENTION_PERIODS, ACCESS_TYPES as CONTRACT_ACCESS_TYPES, SCD_TYPES as CONTRACT_SCD_TYPES } from '@svc/contracts';
import type { ListReplicationsResponse, ReplicationDescription } from '@svc/contracts';
import { ACCESS_TYPES, RETENTION_PERIODS, SCD_TYPES } from '../forms/replication-fields.js';
import { SECRET_FIELD_NAMES, SECRET_MASK } from '../render/secrets.js';
import { CONSOLE_OPERATIONS } from './operations.js';
import type { DescribedReplication, ReplicationList, Wire } from './wire-types.js';

/*
 * The console restates what it needs of libs/contracts (its browser build cannot import it). These checks fail
 * when the two drift: the type ones at `npm run typecheck`, the value ones here.
 */
const describedFromServer = (value: Wire<ReplicationDescription>): DescribedReplication => value;
const listFromServer = (value: ListReplicationsResponse): ReplicationList => value;

describe('what the console restates of libs/contracts', () => {
  it('reads every answer the server types', () => {
    expect(typeof describedFromServer).toBe('function');
    expect(typeof listFromServer).toBe('function');
  });

  it('calls operations the gateway knows (GetReplicationMetrics may still be on its way)', () => {
    const known: readonly string[] = OPERATIONS;
    expect(CONSOLE_OPERATIONS.filter((operation) => !known.includes(operation) && operation !== 'GetReplicationMetrics')).toEqual([]);
    // Access keys are managed with svc keys; the console has no keys page.
    const notInConsole: readonly string[] = ACCESS_KEY_OPERATIONS;
    expect(OPERATIONS.filter((operation) => !(CONSOLE_OPERATIONS as readonly string[]).includes(operation) && !notInConsole.includes(operation))).toEqual([]);
  });

  it('masks the same secret fields with the same mask', () => {
    expect([...SECRET_FIELD_NAMES].sort()).toEqual([...CONTRACT_SECRET_FIELDS].sort());
    expect(SECRET_MASK).toBe(CONTRACT_SECRET_MASK);
  });

  it('offers the same choices as the API accepts', () => {
    expect(RETENTION_PERIODS).toEqual(CONTRACT_RETENTION_PERIODS);
    expect(ACCESS_TYPES).toEqual(CONTRACT_ACCESS_TYPES);
    expect(SCD_TYPES).toEqual(CONTRACT_SCD_TYPES);
  });
});
