import { targetPolicyProblems } from '@svc/connectors';
import { targetPolicyOf } from './target-policy';

describe('targetPolicyOf', () => {
  const source = (connectionString: string) => ({ source: { connectionString, encryptDataInTransit: false } });
  const resolveLoopback = () => Promise.resolve(['127.0.0.1']);

  it('reads the control database from DATABASE_URL, an IPv6 host unbracketed', () => {
    expect(targetPolicyOf({ databaseUrl: 'postgres://svc@[::1]:6543/svc_registry', allowLoopbackTargets: false })).toEqual({
      controlDatabase: { host: '::1', port: 6543, database: 'svc_registry' },
      allowLoopback: false,
    });
  });

  it('takes a control database on a Unix socket as this machine: loopback spellings of it are refused (issue 36)', async () => {
    const policy = targetPolicyOf({ databaseUrl: 'postgres://svc@%2Fvar%2Frun%2Fpostgresql/svc_registry', allowLoopbackTargets: true });
    expect(policy.controlDatabase.host).toBe('/var/run/postgresql');
    expect(await targetPolicyProblems(source('postgres://u@[::ffff:127.0.0.1]:5432/svc_registry'), policy, resolveLoopback)).toEqual([
      expect.stringContaining('own control database') as unknown,
    ]);
    expect(await targetPolicyProblems(source('postgres://u@127.0.0.1:5432/sales'), policy, resolveLoopback)).toEqual([]);
  });
});
