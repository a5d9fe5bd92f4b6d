import { targetPolicyProblems, type ResolveHost, type TargetPolicy } from './target-policy';

const policy: TargetPolicy = { controlDatabase: { host: '127.0.0.1', port: 5432, database: 'svc_registry' }, allowLoopback: true };
const hosts: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'db.internal': ['10.0.0.7'],
  'rebind.example': ['169.254.169.254'],
  'metadata.google.internal': ['169.254.169.254'],
};
const resolve: ResolveHost = (host) => (hosts[host] ? Promise.resolve(hosts[host]) : Promise.reject(new Error('ENOTFOUND')));
const source = (connectionString: string) => ({ source: { connectionString, encryptDataInTransit: false } });
const warehouse = (url: string, databaseName: string) => ({
  warehouse: { url, databaseName, username: 'u', password: 'p', accessType: 'AccessKey' as const, bucketName: 'b', bucketFolderName: '', regionEndpoint: '', retentionDays: 1, databaseSchema: 'dw', scdType: 'Type1' as const },
});

describe('targetPolicyProblems (issue 19: connection strings never reach the control plane)', () => {
  it('refuses the control database however its server is named, even where loopback is allowed', async () => {
    for (const connectionString of [
      'postgres://postgres@127.0.0.1:5432/svc_registry',
      'postgres://postgres@localhost/svc_registry',
      'postgres://postgres@[::1]:5432/SVC_REGISTRY',
      'Server=127.0.0.1,5432;Database=svc_registry;User Id=sa;Password=x',
    ]) {
      expect({ connectionString, problems: await targetPolicyProblems(source(connectionString), policy, resolve) }).toEqual({
        connectionString,
        problems: [expect.stringContaining("{Source\\ConnectionString}: names the replication service's own control database") as unknown],
      });
    }
    expect(await targetPolicyProblems(warehouse('postgres://localhost:5432', 'svc_registry'), policy, resolve)).toEqual([
      expect.stringContaining('{Warehouse\\Url}: names the replication service') as unknown,
    ]);
  });

  it('lets another database of the same server through where loopback is allowed (npm start, tests)', async () => {
    expect(await targetPolicyProblems(source('postgres://postgres@127.0.0.1:5432/sales'), policy, resolve)).toEqual([]);
    expect(await targetPolicyProblems(source('postgres://postgres@127.0.0.1:6432/svc_registry'), policy, resolve)).toEqual([]);
  });

  it('refuses loopback unless allowed, and metadata, link-local and unspecified addresses always', async () => {
    const strict = { ...policy, allowLoopback: false };
    expect(await targetPolicyProblems(source('postgres://u@localhost/sales'), strict, resolve)).toEqual([expect.stringContaining('names a loopback address') as unknown]);
    for (const [connectionString, problem] of [
      ['postgres://u@169.254.169.254/x', 'cloud metadata'],
      ['postgres://u@rebind.example/x', 'cloud metadata'],
      ['postgres://u@169.254.10.1/x', 'link-local'],
      ['postgres://u@[fe80::1]/x', 'link-local'],
      ['postgres://u@0.0.0.0/x', 'unspecified'],
    ] as const) {
      expect(await targetPolicyProblems(source(connectionString), policy, resolve)).toEqual([expect.stringContaining(problem) as unknown]);
    }
  });

  it('lets ordinary hosts through, and leaves a name that does not resolve to the reachability probe', async () => {
    expect(await targetPolicyProblems(source('postgres://u@db.internal/sales'), { ...policy, allowLoopback: false }, resolve)).toEqual([]);
    expect(await targetPolicyProblems(source('postgres://u@nowhere.invalid/sales'), { ...policy, allowLoopback: false }, resolve)).toEqual([]);
    expect(await targetPolicyProblems(warehouse('examplecluster.abc.us-west-2.redshift.amazonaws.com:5439', 'dev'), policy, resolve)).toEqual([]);
  });
});
