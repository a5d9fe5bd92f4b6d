import { UsageError } from '../exit-codes';
import { parseAllowedOperations, parseArgs, parseFieldAssignment } from './parse-args';

describe('parseArgs', () => {
  it('parses an operation alias with body-building flags and connection flags', () => {
    expect(
      parseArgs([
        'alter',
        '--replication-id',
        '6f1c',
        '--set',
        'Warehouse.BucketName=my-bucket',
        '--set=parallelTablesLimit=4',
        '--format',
        'XML',
        '--endpoint=http://gw:8080',
        '--profile',
        'prod',
        '--region',
        'eu-west-1',
        '--raw',
      ]),
    ).toEqual({
      kind: 'operation',
      operation: 'AlterWarehouseReplication',
      format: 'xml',
      assignments: [
        { path: ['replicationId'], value: '6f1c' },
        { path: ['Warehouse', 'BucketName'], value: 'my-bucket' },
        { path: ['parallelTablesLimit'], value: '4' },
      ],
      connection: { endpoint: 'http://gw:8080', profile: 'prod', region: 'eu-west-1' },
      raw: true,
    });
  });

  it('accepts a full API name and a --file without other flags', () => {
    expect(parseArgs(['CreateWarehouseReplication', '--file', 'create.json'])).toEqual({
      kind: 'operation',
      operation: 'CreateWarehouseReplication',
      file: 'create.json',
      assignments: [],
      connection: {},
      raw: false,
    });
  });

  it('allows leaving out the operation when a body is given, to infer it from the XML root', () => {
    const command = parseArgs(['--body', '<ListWarehouseReplicationsRequest/>']);
    expect(command).toMatchObject({ kind: 'operation', body: '<ListWarehouseReplicationsRequest/>' });
    expect(command).not.toHaveProperty('operation');
  });

  it('keeps a --set value that itself contains = and dots', () => {
    expect(parseArgs(['alter', '--set', 'source.connectionString=Server=a.b;Database=c'])).toMatchObject({
      assignments: [{ path: ['source', 'connectionString'], value: 'Server=a.b;Database=c' }],
    });
  });

  it.each([
    [[], 'no command given'],
    [['frobnicate'], "unknown operation 'frobnicate'"],
    [['list', 'extra'], 'expected one operation'],
    [['list', '--bogus'], "unknown option '--bogus'"],
    [['list', '-x'], "unknown option '-x'"],
    [['list', '--toString'], "unknown option '--toString'"],
    [['list', '--constructor=1'], "unknown option '--constructor'"],
    [['list', '--region'], '--region needs a value'],
    [['list', '--raw=yes'], '--raw takes no value'],
    [['list', '--region', 'a', '--region', 'b'], '--region is given more than once'],
    [['list', '--format', 'yaml'], '--format must be json or xml'],
    [['create', '--file', 'a.xml', '--body', '{}'], 'either --file or --body'],
    [['alter', '--file', 'a.xml', '--set', 'a=b'], 'cannot be combined'],
    [['alter', '--body', '{}', '--replication-id', 'x'], 'cannot be combined'],
    [['--replication-id', 'x'], 'name the operation'],
    [['keys'], "unknown keys command ''"],
    [['keys', 'revoke'], "unknown keys command 'revoke'"],
    [['keys', 'delete'], 'svc keys delete needs --access-key-id'],
    [['keys', 'expire', '--access-key-id', 'K'], 'svc keys expire needs --at'],
    [['keys', 'rotate', '--access-key-id', 'K', '--overlap-minutes', 'soon'], '--overlap-minutes must be a whole number'],
    [['keys', 'create'], 'needs --operations'],
    [['keys', 'create', '--operations', '*', '--file', 'x'], "unknown option '--file'"],
  ])('rejects %j with a usage error (%s)', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it.each([[['--help']], [['-h']], [['help']], [['create', '--help']]])('recognises %j as a help request', (argv) => {
    expect(parseArgs(argv)).toEqual({ kind: 'help' });
  });

  it('parses keys create with its flags', () => {
    expect(
      parseArgs(['keys', 'create', '--operations', 'CreateWarehouseReplication, describe', '--description', 'ci key', '--nats-url', 'nats://n:4222']),
    ).toEqual({
      kind: 'keys-create',
      allowedOperations: ['CreateWarehouseReplication', 'DescribeWarehouseReplication'],
      replicationScope: 'Own',
      description: 'ci key',
      transport: { kind: 'bus', natsUrl: 'nats://n:4222' },
    });
    expect(parseArgs(['keys', 'create', '--operations', '*', '--replications', 'all'])).toMatchObject({ replicationScope: 'All' });
    expect(() => parseArgs(['keys', 'create', '--operations', '*', '--replications', 'mine'])).toThrow("--replications must be 'own'");
  });

  it('sends svc keys over the signed API unless --over-bus or --nats-url says the bus', () => {
    expect(parseArgs(['keys', 'create', '--operations', 'list', '--expires-at', '2027-01-31T01:00:00+01:00', '--profile', 'ops', '--endpoint', 'https://svc'])).toEqual({
      kind: 'keys-create',
      allowedOperations: ['ListWarehouseReplications'],
      replicationScope: 'Own',
      expiresAt: '2027-01-31T00:00:00.000Z',
      transport: { kind: 'api', connection: { profile: 'ops', endpoint: 'https://svc' } },
    });
    expect(parseArgs(['keys', 'list', '--over-bus'])).toEqual({ kind: 'keys-manage', request: { action: 'List' }, transport: { kind: 'bus' } });
    expect(parseArgs(['keys', 'expire', '--access-key-id', 'AK', '--at', 'NEVER', '--insecure'])).toEqual({
      kind: 'keys-manage',
      request: { action: 'Expire', accessKeyId: 'AK', expiresAt: null },
      transport: { kind: 'api', connection: { insecure: true } },
    });
    expect(() => parseArgs(['keys', 'list', '--over-bus', '--profile', 'ops'])).toThrow('--profile is for the signed API; it cannot be combined with --over-bus or --nats-url');
    expect(() => parseArgs(['keys', 'create', '--operations', '*', '--over-bus', '--expires-at', '2027-01-31T00:00:00Z'])).toThrow('--expires-at works over the signed API');
    expect(() => parseArgs(['keys', 'create', '--operations', '*', '--expires-at', 'tomorrow'])).toThrow("--expires-at must be an ISO timestamp with its offset, such as 2027-01-31T00:00:00Z, not 'tomorrow'");
  });

  it('grants the error-detail permission by name, in any case (issue 19)', () => {
    expect(parseArgs(['keys', 'create', '--operations', 'describe,describereplicationerrordetails'])).toMatchObject({
      allowedOperations: ['DescribeWarehouseReplication', 'DescribeReplicationErrorDetails'],
    });
  });
});

describe('svc validate, svc validation and svc repair', () => {
  const ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
  const VALIDATION_ID = '9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c';

  it('starts a validation of the replication given after the operation, of some tables with --tables', () => {
    expect(parseArgs(['validate', ID, '--tables', '[dbo].[Orders],[sales].[Order Lines]', '--format', 'xml'])).toEqual({
      kind: 'operation',
      operation: 'StartReplicationValidation',
      format: 'xml',
      assignments: [
        { path: ['replicationId'], value: ID },
        { path: ['tablesToInclude'], value: '[dbo].[Orders],[sales].[Order Lines]' },
      ],
      connection: {},
      raw: false,
    });
    expect(parseArgs(['validate', '--replication-id', ID])).toMatchObject({ operation: 'StartReplicationValidation', assignments: [{ path: ['replicationId'], value: ID }] });
  });

  it('describes the latest validation, or the one --validation-id names', () => {
    expect(parseArgs(['validation', ID, '--endpoint', 'https://svc'])).toEqual({
      kind: 'operation',
      operation: 'DescribeReplicationValidation',
      assignments: [{ path: ['replicationId'], value: ID }],
      connection: { endpoint: 'https://svc' },
      raw: false,
    });
    expect(parseArgs(['DescribeReplicationValidation', ID, '--validation-id=9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c'])).toMatchObject({
      assignments: [
        { path: ['replicationId'], value: ID },
        { path: ['validationId'], value: '9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c' },
      ],
    });
  });

  it('repairs the validation --validation-id names, some of its tables with --tables, the flags in any order', () => {
    expect(parseArgs(['repair', ID, '--tables', '[dbo].[Orders],[sales].[Order Lines]', '--validation-id', VALIDATION_ID])).toEqual({
      kind: 'operation',
      operation: 'RepairReplication',
      assignments: [
        { path: ['replicationId'], value: ID },
        { path: ['validationId'], value: VALIDATION_ID },
        { path: ['tablesToInclude'], value: '[dbo].[Orders],[sales].[Order Lines]' },
      ],
      connection: {},
      raw: false,
    });
    expect(parseArgs(['RepairReplication', '--replication-id', ID, '--validation-id', VALIDATION_ID])).toMatchObject({
      operation: 'RepairReplication',
      assignments: [
        { path: ['replicationId'], value: ID },
        { path: ['validationId'], value: VALIDATION_ID },
      ],
    });
  });

  it.each([
    [['validate', ID, 'other'], `expected one operation and one replication id, got 'validate ${ID} other'`],
    [['repair', ID, VALIDATION_ID], `expected one operation and one replication id, got 'repair ${ID} ${VALIDATION_ID}'`],
    [['repair', ID, '--validation-id', VALIDATION_ID, '--replication-id', ID], 'give the replication once: after svc repair or as --replication-id'],
    [['repair', ID, '--validation-id', VALIDATION_ID, '--body', '{}'], 'cannot be combined with --file or --body'],
    [['describe', '--replication-id', ID, '--validation-id', VALIDATION_ID], '--validation-id does not go with svc describe'],
    [['describe', ID], `expected one operation, got 'describe ${ID}'`],
    [['validate', ID, '--replication-id', ID], 'give the replication once: after svc validate or as --replication-id'],
    [['validate', ID, '--validation-id', ID], '--validation-id does not go with svc validate'],
    [['validation', ID, '--tables', '[dbo].[Orders]'], '--tables does not go with svc validation'],
    [['metrics', '--replication-id', ID, '--tables', '[dbo].[Orders]'], '--tables does not go with svc metrics'],
    [['validate', ID, '--file', 'body.json'], 'cannot be combined with --file or --body'],
    [['validation', ID, '--watch'], '--watch works with describe only'],
  ])('refuses %j (%s)', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });
});

describe('parseFieldAssignment', () => {
  it.each(['noequals', '=x', 'a..b=1', 'a.=1', 'a-b=1', 'a.b c=1', '1a=2'])('rejects %s', (text) => {
    expect(() => parseFieldAssignment(text)).toThrow(UsageError);
  });

  it('accepts an empty value', () => {
    expect(parseFieldAssignment('note=')).toEqual({ path: ['note'], value: '' });
  });
});

describe('parseAllowedOperations', () => {
  it('accepts * alone', () => {
    expect(parseAllowedOperations(' * ')).toEqual(['*']);
  });

  it('rejects * mixed with names, unknown names and an empty list', () => {
    expect(() => parseAllowedOperations('*,list')).toThrow("give it alone");
    expect(() => parseAllowedOperations('list,Nope')).toThrow("unknown operation 'Nope'");
    expect(() => parseAllowedOperations(' , ')).toThrow('at least one');
  });

  it('resolves aliases and removes duplicates', () => {
    expect(parseAllowedOperations('list,ListWarehouseReplications,start')).toEqual(['ListWarehouseReplications', 'StartReplication']);
  });
});

describe('parseArgs: transport flags', () => {
  it('reads --insecure and --ca-file as connection flags, for calls and for the watch', () => {
    expect(parseArgs(['list', '--insecure', '--ca-file', '/etc/ca.pem'])).toMatchObject({ kind: 'operation', connection: { insecure: true, caFile: '/etc/ca.pem' } });
    expect(parseArgs(['describe', '--replication-id', 'r-1', '--watch', '--insecure', '--ca-file=/etc/ca.pem'])).toMatchObject({
      kind: 'describe-watch',
      connection: { insecure: true, caFile: '/etc/ca.pem' },
    });
    expect(parseArgs(['list'])).toMatchObject({ connection: {} });
  });

  it.each([
    [['list', '--insecure=yes'], '--insecure takes no value'],
    [['list', '--ca-file'], '--ca-file needs a value'],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });
});

describe('parseArgs: describe --watch', () => {
  it('parses the replication, the interval (default 2 s) and the connection flags', () => {
    expect(parseArgs(['describe', '--replication-id', 'r-1', '--watch', '--endpoint', 'http://gw:8080'])).toEqual({
      kind: 'describe-watch',
      replicationId: 'r-1',
      intervalSeconds: 2,
      untilTracking: false,
      connection: { endpoint: 'http://gw:8080' },
    });
    expect(parseArgs(['DescribeWarehouseReplication', '--watch', '--replication-id=r-1', '--interval', '0.5'])).toMatchObject({ intervalSeconds: 0.5 });
    expect(parseArgs(['describe', '--replication-id', 'r-1', '--watch', '--until-tracking'])).toMatchObject({ untilTracking: true });
  });

  it.each([
    [['list', '--watch'], '--watch works with describe only'],
    [['describe', '--watch'], 'svc describe --watch needs --replication-id ID'],
    [['describe', '--replication-id', 'r', '--watch', '--format', 'xml'], '--watch cannot be combined with --format'],
    [['describe', '--replication-id', 'r', '--watch', '--raw'], '--watch cannot be combined with --raw'],
    [['describe', '--replication-id', 'r', '--watch', '--set', 'a=b'], '--watch cannot be combined with --set'],
    [['describe', '--replication-id', 'r', '--watch', '--interval', '0'], '--interval must be a number of seconds from 0.5 to 3600'],
    [['describe', '--replication-id', 'r', '--watch', '--interval', '2s'], "not '2s'"],
    [['describe', '--replication-id', 'r', '--interval', '5'], '--interval only goes with --watch'],
    [['describe', '--replication-id', 'r', '--until-tracking'], '--until-tracking only goes with --watch'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });
});
