import type { Client } from 'pg';
import { checkPostgresCapture } from './capture-check';

/**
 * The decision Create takes from what the server says of the login (the query itself runs against PostgreSQL in
 * capture-check.integration-spec.ts): here the server's answer is given, for settings a test server cannot take on the
 * fly (max_wal_senders needs a restart).
 */
function serverAnswering(rights: Record<string, unknown>): Client {
  return { query: async () => ({ rows: [rights] }) } as unknown as Client;
}

const ownedTable = { schema: 'public', name: 'orders', owned: true, trigger: true, select: true, identity: true };
const ready = { wal_level: 'logical', login: 'svc', max_wal_senders: 10, can_replicate: true, can_create: true, schema_exists: false, slot: 'svc_ct_16384', tables: [ownedTable] };

describe('checkPostgresCapture', () => {
  it('reads from the log where the server and the login allow it', async () => {
    const check = await checkPostgresCapture(serverAnswering(ready), [{ schema: 'public', name: 'orders' }]);
    expect(check.problems).toEqual([]);
    expect(check.note).toContain('read from the write-ahead log through replication slot svc_ct_16384');
  });

  it('falls back to triggers, and says how to move to the log, where no walsender is allowed (max_wal_senders = 0)', async () => {
    const check = await checkPostgresCapture(serverAnswering({ ...ready, max_wal_senders: 0 }), [{ schema: 'public', name: 'orders' }]);
    expect(check.problems).toEqual([]);
    expect(check.note).toContain('Changes are captured by triggers');
    expect(check.note).toContain('set max_wal_senders to at least 1');
  });
});
