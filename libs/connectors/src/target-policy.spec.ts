import { checkTargetPolicy, targetPolicyProblems, type ResolveHost, type TargetPolicy } from './target-policy';

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

describe('targetPolicyProblems against address spellings and sockets (issue 36)', () => {
  const strict = { ...policy, allowLoopback: false };
  const nothingResolves: ResolveHost = () => Promise.reject(new Error('ENOTFOUND'));
  const problemsOf = (connectionString: string, using: TargetPolicy = strict) => targetPolicyProblems(source(connectionString), using, nothingResolves);

  it('refuses the control database spelled as an IPv4-mapped IPv6 address', async () => {
    expect(await problemsOf('postgres://postgres@[::ffff:127.0.0.1]:5432/svc_registry', policy)).toEqual([expect.stringContaining('own control database') as unknown]);
    expect(await problemsOf('Server=::ffff:127.0.0.1,5432;Database=svc_registry;User Id=sa;Password=x', policy)).toEqual([expect.stringContaining('own control database') as unknown]);
  });

  it.each([
    ['postgres://u@[::ffff:127.0.0.1]:5432/x', 'loopback'],
    ['postgres://u@[::ffff:169.254.169.254]/x', 'cloud metadata'],
    ['postgres://u@[::ffff:0.0.0.0]/x', 'unspecified'],
    ['postgres://u@[64:ff9b::a9fe:a9fe]/x', 'cloud metadata'],
    ['postgres://u@[2002:7f00:1::1]/x', 'loopback'],
    ['postgres://u@[::127.0.0.1]/x', 'loopback'],
    ['postgres://u@0x7f.1/x', 'loopback'],
    ['postgres://u@2130706433/x', 'loopback'],
    ['postgres://u@0177.0.0.1/x', 'loopback'],
    ['postgres://u@127.1/x', 'loopback'],
    ['postgres://u@0/x', 'unspecified'],
    ['postgres://u@224.0.0.1/x', 'multicast'],
    ['postgres://u@[ff02::1]/x', 'multicast'],
    ['Server=tcp:0x7f.1,1433;Database=x', 'loopback'],
    ['Data Source=::ffff:a9fe:a9fe;Database=x', 'cloud metadata'],
  ])('refuses %s (%s)', async (connectionString, problem) => {
    expect(await problemsOf(connectionString)).toEqual([expect.stringMatching(new RegExp(`^\\{Source\\\\ConnectionString\\}: .*${problem}`))]);
  });

  it.each([
    'postgres://postgres@%2Fvar%2Frun%2Fpostgresql/svc_registry',
    'postgres://postgres@%2Ftmp:5432/sales',
  ])('refuses a host that is a path (a Unix socket to pg) even where loopback is allowed: %s', async (connectionString) => {
    expect(await problemsOf(connectionString, policy)).toEqual([expect.stringMatching(/^\{Source\\ConnectionString\}: .*Unix socket/)]);
  });

  it.each(['redshift://%2Ftmp:5439', 'postgres://%2Fvar%2Frun%2Fpostgresql:5432'])('refuses a Warehouse.Url whose host is a path: %s', async (url) => {
    expect(await targetPolicyProblems(warehouse(url, 'dev'), policy, nothingResolves)).toEqual([expect.stringMatching(/^\{Warehouse\\Url\}: .*Unix socket/)]);
  });

  it('quotes nothing of the connection string in its refusals', async () => {
    const problems = await problemsOf('postgres://u:Sup3rSecretPw@[::ffff:127.0.0.1]:5432/x');
    expect(problems).toHaveLength(1);
    expect(problems.join('')).not.toMatch(/Sup3rSecretPw|ffff/);
  });
});

describe('checkTargetPolicy: the answers it checked, for the probes to dial (issue 36, DNS rebinding)', () => {
  it('pins what each name resolved to, and nothing for an address or a name that did not resolve', async () => {
    const verdict = await checkTargetPolicy(
      { ...source('postgres://u@db.internal/sales'), staging: { connectionString: 'postgres://u@10.0.0.9/stg', encryptDataInTransit: false }, ...warehouse('redshift://nowhere.invalid:5439', 'dev') },
      { ...policy, allowLoopback: false },
      resolve,
    );
    expect(verdict).toEqual({ problems: [], pinned: new Map([['db.internal', ['10.0.0.7']]]) });
  });

  it('checks every answer of a name: one refused address refuses it', async () => {
    const twoFaced: ResolveHost = () => Promise.resolve(['203.0.113.7', '::ffff:169.254.169.254']);
    expect(await targetPolicyProblems(source('postgres://u@db.example.com/x'), policy, twoFaced)).toEqual([expect.stringContaining('cloud metadata') as unknown]);
  });
});

