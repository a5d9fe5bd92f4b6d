import { tableKey } from '@svc/contracts';
import { type WireFormat } from '@svc/api-codec';
import { parseOperationRequest } from './parse-operation-request';
import {
  CREATE_ACCESS_KEY_CANONICAL,
  CREATE_JSON_TEXT,
  REMOVE,
  bodyOf,
  createAccessKeyTree,
  createIamRoleTree,
  decoded,
  toXml,
  withChange,
  type Tree,
} from './spec-support/seed-requests';

const FORMATS: WireFormat[] = ['xml', 'json'];
const OP = 'CreateWarehouseReplication';

function problemsOf(format: WireFormat, tree: Tree): string[] {
  const result = parseOperationRequest(OP, decoded(OP, format, bodyOf(OP, format, tree)));
  return result.ok ? [] : result.messages;
}

describe('CreateWarehouseReplication: accepted requests', () => {
  it('reads the seed-shaped XML body into the canonical request', () => {
    const result = parseOperationRequest(OP, decoded(OP, 'xml', toXml(OP, createAccessKeyTree())));
    expect(result).toEqual({ ok: true, value: CREATE_ACCESS_KEY_CANONICAL });
  });

  it('reads the seed-shaped JSON body, with quoted numbers and resetChangeTracking', () => {
    const result = parseOperationRequest(OP, decoded(OP, 'json', CREATE_JSON_TEXT));
    expect(result).toEqual({
      ok: true,
      value: {
        ...CREATE_ACCESS_KEY_CANONICAL,
        source: { ...CREATE_ACCESS_KEY_CANONICAL.source, resetChangeTracking: false },
        warehouse: {
          accessType: 'IAMRole',
          accountId: '123456789012',
          roleName: 'RedshiftCopyRole',
          bucketName: 'replication-bucket',
          bucketFolderName: '/replications/sales',
          regionEndpoint: 'us-east-1',
          retentionDays: 7,
          url: 'examplecluster.abc123xyz789.us-east-1.redshift.amazonaws.com:5439',
          databaseSchema: 'public',
          databaseName: 'dev',
          username: 'awsuser',
          password: 'Wh-Pa55word',
          scdType: 'Type1',
        },
        tablesToInclude: 'All',
        reseedingSchedule: { ...CREATE_ACCESS_KEY_CANONICAL.reseedingSchedule, pkTablesToInclude: [] },
      },
    });
  });

  it.each(FORMATS)('reads a ValidationSchedule (issue 24), its interval as a number and its times normalised (%s)', (format) => {
    const tree = withChange(createAccessKeyTree(), ['validationSchedule'], { fromTime: '1:00:00 am', toTime: '05:00:00 AM', repeatIntervalInMinutes: '1440' });
    const result = parseOperationRequest(OP, decoded(OP, format, bodyOf(OP, format, tree)));
    expect(result).toEqual({ ok: true, value: { ...CREATE_ACCESS_KEY_CANONICAL, validationSchedule: { fromTime: '01:00:00 AM', toTime: '05:00:00 AM', repeatIntervalInMinutes: 1440 } } });
  });

  it.each(FORMATS)('leaves an omitted ReseedingSchedule out entirely (%s)', (format) => {
    const tree = withChange(createIamRoleTree(), ['reseedingSchedule'], REMOVE);
    const result = parseOperationRequest(OP, decoded(OP, format, bodyOf(OP, format, tree)));
    if (!result.ok) throw new Error(result.messages.join(' | '));
    expect(Object.keys(result.value)).not.toContain('reseedingSchedule');
    expect(Object.keys(result.value.warehouse)).not.toContain('accessKey');
    expect(Object.keys(result.value.source)).not.toContain('resetChangeTracking');
    expect(JSON.stringify(result.value, (_key, value: unknown) => (value === undefined ? 'UNDEFINED' : value))).not.toContain('UNDEFINED');
  });

  it.each([
    ['lower-case enumerations', ['warehouse', 'accessType'], 'accesskey', 'AccessKey'],
    ['an upper-case ScdType', ['warehouse', 'scdType'], 'TYPE2', 'Type2'],
    ['a retention period with odd spacing', ['source', 'changeTrackingRetentionPeriod'], '12  hours', '12 Hours'],
    ['TRUE in capitals', ['rebuildIndexes'], 'TRUE', true],
    ['tables with spaces around commas', ['tablesToInclude'], ' [dbo].[A] ,[sales].[Order Lines] ', ['[dbo].[A]', '[sales].[Order Lines]']],
    ['all in lower case', ['tablesToInclude'], 'all', 'All'],
    ['a bracketed name holding a comma and an escaped bracket', ['tablesToInclude'], '[dbo].[a,b]]c]', ['[dbo].[a,b]]c]']],
    ['the pipeline key of a table named a]b', ['tablesToInclude'], '[public].[a]]b]', [tableKey({ schema: 'public', name: 'a]b' })]],
    ['a pm time with a single-digit hour', ['reseedingSchedule', 'toTime'], '9:05:00 pm', '09:05:00 PM'],
    ['an upper-case region', ['warehouse', 'regionEndpoint'], 'EU-WEST-2', 'eu-west-2'],
    ['a postgres warehouse URL', ['warehouse', 'url'], 'postgres://warehouse.local:5432/dw', 'postgres://warehouse.local:5432/dw'],
    ['a redshift warehouse URL', ['warehouse', 'url'], 'redshift://cluster.example.com:5439', 'redshift://cluster.example.com:5439'],
    ['a folder without a leading slash', ['warehouse', 'bucketFolderName'], 'replications/sales', 'replications/sales'],
  ])('accepts %s', (_case, path, raw, canonical) => {
    for (const format of FORMATS) {
      const tree = withChange(createAccessKeyTree(), path, raw);
      const result = parseOperationRequest(OP, decoded(OP, format, bodyOf(OP, format, tree)));
      if (!result.ok) throw new Error(`${format}: ${result.messages.join(' | ')}`);
      const value = path.reduce<unknown>((node, key) => (node as Tree)[key], result.value);
      expect(value).toEqual(canonical);
    }
  });

  it('accepts JSON numbers and booleans unquoted', () => {
    const tree = withChange(withChange(createAccessKeyTree(), ['parallelTablesLimit'], 4), ['rebuildIndexes'], true);
    const result = parseOperationRequest(OP, decoded(OP, 'json', JSON.stringify(tree)));
    expect(result.ok && [result.value.parallelTablesLimit, result.value.rebuildIndexes]).toEqual([4, true]);
  });

  it('treats an empty AccountId element as absent under AccessKey', () => {
    const tree = withChange(createAccessKeyTree(), ['warehouse', 'accountId'], '');
    const result = parseOperationRequest(OP, decoded(OP, 'xml', toXml(OP, tree)));
    expect(result.ok && Object.keys(result.value.warehouse)).not.toContain('accountId');
  });
});

type Row = [rule: string, path: string[], value: unknown, label: string, reason: string];

const iamRole = (path: string[], value: unknown): Tree => withChange(createIamRoleTree(), path, value);

/** One row per rule: the change to a valid AccessKey Create, the field label and a fragment of the reason. */
const CREATE_RULES: Row[] = [
  ['ParallelTablesLimit required', ['parallelTablesLimit'], REMOVE, '{ParallelTablesLimit}', 'is required'],
  ['ParallelTablesLimit not 0', ['parallelTablesLimit'], '0', '{ParallelTablesLimit}', "invalid value '0'. Must be a whole number from 1"],
  ['ParallelTablesLimit not negative', ['parallelTablesLimit'], '-3', '{ParallelTablesLimit}', "invalid value '-3'. Must be a whole number"],
  ['ParallelTablesLimit not fractional', ['parallelTablesLimit'], '1.5', '{ParallelTablesLimit}', "invalid value '1.5'. Must be a whole number"],
  ['ParallelTablesLimit not a word', ['parallelTablesLimit'], 'abc', '{ParallelTablesLimit}', "invalid value 'abc'. Must be a whole number"],
  ['ParallelTablesLimit not huge', ['parallelTablesLimit'], '99999999999', '{ParallelTablesLimit}', 'from 1 to 2147483647'],
  ['RebuildIndexes required', ['rebuildIndexes'], REMOVE, '{RebuildIndexes}', 'is required'],
  ['RebuildIndexes true/false', ['rebuildIndexes'], 'yes', '{RebuildIndexes}', "invalid value 'yes'. Must be true or false"],
  ['Source required', ['source'], REMOVE, '{Source}', 'is required'],
  ['Source is a group', ['source'], 'Server=x', '{Source}', 'must be a group of fields, not a single value'],
  ['Source.ConnectionString required', ['source', 'connectionString'], REMOVE, '{Source\\ConnectionString}', 'is required'],
  ['Source.ConnectionString not empty', ['source', 'connectionString'], '', '{Source\\ConnectionString}', 'must not be empty'],
  ['Source.EncryptDataInTransit true/false', ['source', 'encryptDataInTransit'], 'maybe', '{Source\\EncryptDataInTransit}', 'Must be true or false'],
  ['Source.ChangeTrackingRetentionPeriod enumerated', ['source', 'changeTrackingRetentionPeriod'], '9 Days', '{Source\\ChangeTrackingRetentionPeriod}', "invalid value '9 Days'. Must be one of 12 Hours, 1 Day, 2 Days"],
  ['Source.ChangeTrackingRetentionPeriod required', ['source', 'changeTrackingRetentionPeriod'], REMOVE, '{Source\\ChangeTrackingRetentionPeriod}', 'is required'],
  ['Source.ResetChangeTracking true/false', ['source', 'resetChangeTracking'], 'sometimes', '{Source\\ResetChangeTracking}', 'Must be true or false'],
  ['Source has no unknown fields', ['source', 'foo'], '1', '{Source\\Foo}', 'unknown field'],
  ['Staging required', ['staging'], REMOVE, '{Staging}', 'is required'],
  ['Staging.ConnectionString not empty', ['staging', 'connectionString'], '', '{Staging\\ConnectionString}', 'must not be empty'],
  ['Staging.EncryptDataInTransit true/false', ['staging', 'encryptDataInTransit'], '1', '{Staging\\EncryptDataInTransit}', 'Must be true or false'],
  ['Staging.ReplicateCompatibilityLevel true/false', ['staging', 'replicateCompatibilityLevel'], '120', '{Staging\\ReplicateCompatibilityLevel}', 'Must be true or false'],
  ['Warehouse required', ['warehouse'], REMOVE, '{Warehouse}', 'is required'],
  ['Warehouse.AccessType required', ['warehouse', 'accessType'], REMOVE, '{Warehouse\\AccessType}', 'is required'],
  ['Warehouse.AccessType enumerated', ['warehouse', 'accessType'], 'Password', '{Warehouse\\AccessType}', "invalid value 'Password'. Must be one of AccessKey, IAMRole"],
  ['rule 1: AccessKey needs AccessKey', ['warehouse', 'accessKey'], REMOVE, '{Warehouse\\AccessKey}', 'is required when AccessType is AccessKey'],
  ['rule 1: AccessKey needs SecretKey', ['warehouse', 'secretKey'], REMOVE, '{Warehouse\\SecretKey}', 'is required when AccessType is AccessKey'],
  ['rule 1: AccessKey refuses AccountId', ['warehouse', 'accountId'], '123456789012', '{Warehouse\\AccountId}', 'must not be given when AccessType is AccessKey'],
  ['rule 1: AccessKey refuses RoleName', ['warehouse', 'roleName'], 'RedshiftCopyRole', '{Warehouse\\RoleName}', 'must not be given when AccessType is AccessKey'],
  ['AccessKey has no spaces', ['warehouse', 'accessKey'], 'AKIA EXAMPLE', '{Warehouse\\AccessKey}', 'invalid value. An access key has no spaces'],
  ['Warehouse.BucketName characters', ['warehouse', 'bucketName'], 'x y', '{Warehouse\\BucketName}', "invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'"],
  ['Warehouse.BucketName at least 3', ['warehouse', 'bucketName'], 'ab', '{Warehouse\\BucketName}', 'A bucket name is 3-63 characters'],
  ['Warehouse.BucketName at most 63', ['warehouse', 'bucketName'], 'b'.repeat(64), '{Warehouse\\BucketName}', 'A bucket name is 3-63 characters'],
  ['Warehouse.BucketName lower case', ['warehouse', 'bucketName'], 'My-Bucket', '{Warehouse\\BucketName}', "invalid value 'My-Bucket'. A bucket name is 3-63 characters"],
  ['Warehouse.BucketName starts with letter or digit', ['warehouse', 'bucketName'], '-bucket', '{Warehouse\\BucketName}', 'starts and ends with a letter or digit'],
  ['Warehouse.BucketName ends with letter or digit', ['warehouse', 'bucketName'], 'bucket.', '{Warehouse\\BucketName}', 'starts and ends with a letter or digit'],
  ['Warehouse.BucketName no ..', ['warehouse', 'bucketName'], 'my..bucket', '{Warehouse\\BucketName}', "has no '..'"],
  ['Warehouse.BucketName not an IP address', ['warehouse', 'bucketName'], '192.168.1.10', '{Warehouse\\BucketName}', 'is not an IP address'],
  ['Warehouse.BucketName reserved prefix', ['warehouse', 'bucketName'], 'xn--bucket', '{Warehouse\\BucketName}', "does not start with 'xn--'"],
  ['Warehouse.BucketFolderName no .. segment', ['warehouse', 'bucketFolderName'], '/replications/../etc', '{Warehouse\\BucketFolderName}', "has no '..' segments"],
  ['Warehouse.BucketFolderName no backslash', ['warehouse', 'bucketFolderName'], 'replications\\sales', '{Warehouse\\BucketFolderName}', 'no backslashes or control characters'],
  ['Warehouse.BucketFolderName required', ['warehouse', 'bucketFolderName'], REMOVE, '{Warehouse\\BucketFolderName}', 'is required'],
  ['Warehouse.RegionEndpoint shape', ['warehouse', 'regionEndpoint'], 'nowhere', '{Warehouse\\RegionEndpoint}', "invalid value 'nowhere'. A region is written like us-east-1"],
  ['Warehouse.RegionEndpoint not empty', ['warehouse', 'regionEndpoint'], '', '{Warehouse\\RegionEndpoint}', 'must not be empty'],
  ['Warehouse.RetentionDays positive', ['warehouse', 'retentionDays'], '0', '{Warehouse\\RetentionDays}', "invalid value '0'. Must be a whole number"],
  ['Warehouse.Url shape', ['warehouse', 'url'], 'not a url', '{Warehouse\\Url}', 'invalid value. A warehouse URL is host:port'],
  ['Warehouse.Url scheme', ['warehouse', 'url'], 'mysql://db:3306', '{Warehouse\\Url}', 'A warehouse URL is host:port'],
  ['Warehouse.Url port', ['warehouse', 'url'], 'cluster.example.com:99999', '{Warehouse\\Url}', 'A warehouse URL is host:port'],
  ['Warehouse.Url without user and password', ['warehouse', 'url'], 'postgres://user:pw@host:5432/dw', '{Warehouse\\Url}', 'must not carry a user name or password: give them in {Warehouse\\Username} and {Warehouse\\Password}'],
  ['Warehouse.Url without a user', ['warehouse', 'url'], 'redshift://admin@cluster.example.com:5439', '{Warehouse\\Url}', 'must not carry a user name or password'],
  ['Warehouse.Url bare form without credentials', ['warehouse', 'url'], 'user:pw@cluster.example.com:5439', '{Warehouse\\Url}', 'must not carry a user name or password'],
  ['Warehouse.Url without a password parameter', ['warehouse', 'url'], 'postgres://host:5432/dw?password=pw', '{Warehouse\\Url}', 'takes only the sslmode and ssl parameters'],
  ['Warehouse.Url brackets hold an IPv6 address', ['warehouse', 'url'], '[cluster]:5439', '{Warehouse\\Url}', 'A warehouse URL is host:port'],
  ['Warehouse.Url percent-encoding', ['warehouse', 'url'], 'postgres://host:5432/%zz', '{Warehouse\\Url}', 'A warehouse URL is host:port'],
  ['Warehouse.DatabaseSchema not empty', ['warehouse', 'databaseSchema'], '', '{Warehouse\\DatabaseSchema}', 'must not be empty'],
  ['Warehouse.DatabaseName required', ['warehouse', 'databaseName'], REMOVE, '{Warehouse\\DatabaseName}', 'is required'],
  ['Warehouse.Username length', ['warehouse', 'username'], 'u'.repeat(128), '{Warehouse\\Username}', 'A name is 1-127 bytes'],
  ['Warehouse.Password not empty', ['warehouse', 'password'], '', '{Warehouse\\Password}', 'must not be empty'],
  ['Warehouse.ScdType enumerated', ['warehouse', 'scdType'], 'Type3', '{Warehouse\\ScdType}', "invalid value 'Type3'. Must be one of Type1, Type2"],
  ['Warehouse.TimeoutInMins is Alter only', ['warehouse', 'timeoutInMins'], '60', '{Warehouse\\TimeoutInMins}', 'can be set only by AlterWarehouseReplication'],
  ['Warehouse.BucketName is a value, not a group', ['warehouse', 'bucketName'], { name: 'b' }, '{Warehouse\\BucketName}', 'must be a single value, not a group of fields'],
  ['AddUpdateTimestamp required', ['addUpdateTimestamp'], REMOVE, '{AddUpdateTimestamp}', 'is required'],
  ['AddUpdateTimestamp true/false', ['addUpdateTimestamp'], 'TRUE!', '{AddUpdateTimestamp}', 'Must be true or false'],
  ['TablesToInclude required', ['tablesToInclude'], REMOVE, '{TablesToInclude}', 'is required'],
  ['TablesToInclude not empty', ['tablesToInclude'], '', '{TablesToInclude}', 'must name at least one table'],
  ['TablesToInclude brackets', ['tablesToInclude'], 'dbo.Orders', '{TablesToInclude}', "entry 1 ('dbo.Orders') must be written [schema].[table]"],
  ['TablesToInclude both names', ['tablesToInclude'], '[dbo].[Orders], [Events]', '{TablesToInclude}', "entry 2 ('[Events]') must be written [schema].[table]"],
  ['TablesToInclude non-empty names', ['tablesToInclude'], '[dbo].[]', '{TablesToInclude}', 'has an empty schema or table name'],
  ['TablesToInclude closed brackets', ['tablesToInclude'], '[dbo].[Orders', '{TablesToInclude}', "has a '[' without its ']'"],
  ['TablesToInclude no duplicates', ['tablesToInclude'], '[dbo].[Orders], [dbo].[Orders]', '{TablesToInclude}', 'lists [dbo].[Orders] more than once'],
  ['TablesToInclude no empty entry', ['tablesToInclude'], '[dbo].[Orders],', '{TablesToInclude}', 'entry 2 is empty'],
  ['TablesToInclude All alone', ['tablesToInclude'], 'All, [dbo].[Orders]', '{TablesToInclude}', 'All is not combined with tables'],
  ['ReseedingSchedule is a group', ['reseedingSchedule'], 'daily', '{ReseedingSchedule}', 'must be a group of fields'],
  ['ReseedingSchedule.NoPkTablesToInclude required', ['reseedingSchedule', 'noPkTablesToInclude'], REMOVE, '{ReseedingSchedule\\NoPkTablesToInclude}', 'is required'],
  ['ReseedingSchedule.PkTablesToInclude syntax', ['reseedingSchedule', 'pkTablesToInclude'], 'Products', '{ReseedingSchedule\\PkTablesToInclude}', 'must be written [schema].[table]'],
  ['ReseedingSchedule.FromTime required', ['reseedingSchedule', 'fromTime'], REMOVE, '{ReseedingSchedule\\FromTime}', 'is required'],
  ['ReseedingSchedule.FromTime 12-hour clock', ['reseedingSchedule', 'fromTime'], '14:00:00 PM', '{ReseedingSchedule\\FromTime}', "invalid value '14:00:00 PM'. A time is hh:mm:ss AM"],
  ['ReseedingSchedule.FromTime has seconds', ['reseedingSchedule', 'fromTime'], '2:00 AM', '{ReseedingSchedule\\FromTime}', 'A time is hh:mm:ss AM'],
  ['ReseedingSchedule.ToTime needs AM/PM', ['reseedingSchedule', 'toTime'], '04:00:00', '{ReseedingSchedule\\ToTime}', 'A time is hh:mm:ss AM'],
  ['ReseedingSchedule.ToTime no hour 0', ['reseedingSchedule', 'toTime'], '0:30:00 AM', '{ReseedingSchedule\\ToTime}', 'hours 1-12'],
  ['ReseedingSchedule.RepeatIntervalInMinutes positive', ['reseedingSchedule', 'repeatIntervalInMinutes'], '1.5', '{ReseedingSchedule\\RepeatIntervalInMinutes}', 'Must be a whole number'],
  ['ReseedingSchedule.RepeatIntervalInMinutes required', ['reseedingSchedule', 'repeatIntervalInMinutes'], REMOVE, '{ReseedingSchedule\\RepeatIntervalInMinutes}', 'is required'],
  ['ValidationSchedule is a group', ['validationSchedule'], 'daily', '{ValidationSchedule}', 'must be a group of fields'],
  ['ValidationSchedule.FromTime required', ['validationSchedule'], { toTime: '05:00:00 AM', repeatIntervalInMinutes: '60' }, '{ValidationSchedule\\FromTime}', 'is required'],
  ['ValidationSchedule.ToTime 12-hour clock', ['validationSchedule'], { fromTime: '01:00:00 AM', toTime: '17:00:00', repeatIntervalInMinutes: '60' }, '{ValidationSchedule\\ToTime}', 'A time is hh:mm:ss AM'],
  ['ValidationSchedule.RepeatIntervalInMinutes a whole number from 0', ['validationSchedule'], { fromTime: '01:00:00 AM', toTime: '05:00:00 AM', repeatIntervalInMinutes: '-5' }, '{ValidationSchedule\\RepeatIntervalInMinutes}', 'Must be a whole number from 0 to 2147483647'],
  ['ValidationSchedule has no table list', ['validationSchedule'], { fromTime: '01:00:00 AM', toTime: '05:00:00 AM', repeatIntervalInMinutes: '60', pkTablesToInclude: 'All' }, '{ValidationSchedule\\PkTablesToInclude}', 'unknown field'],
  ['ReplicationName cannot be given at creation', ['replicationName'], 'Sales', '{ReplicationName}', 'can be set only by AlterWarehouseReplication'],
  ['IsContinuous is an Alter setting', ['isContinuous'], 'true', '{IsContinuous}', 'can be set only by AlterWarehouseReplication'],
  ['no unknown top-level fields', ['foo'], 'bar', '{Foo}', 'unknown field'],
];

const IAM_ROLE_RULES: Array<[rule: string, tree: Tree, label: string, reason: string]> = [
  ['rule 2: IAMRole needs AccountId', iamRole(['warehouse', 'accountId'], REMOVE), '{Warehouse\\AccountId}', 'is required when AccessType is IAMRole'],
  ['rule 2: IAMRole needs RoleName', iamRole(['warehouse', 'roleName'], REMOVE), '{Warehouse\\RoleName}', 'is required when AccessType is IAMRole'],
  ['rule 2: IAMRole refuses AccessKey', iamRole(['warehouse', 'accessKey'], 'AKIAIOSFODNN7EXAMPLE'), '{Warehouse\\AccessKey}', 'must not be given when AccessType is IAMRole'],
  ['rule 2: IAMRole refuses SecretKey', iamRole(['warehouse', 'secretKey'], 'secret'), '{Warehouse\\SecretKey}', 'must not be given when AccessType is IAMRole'],
  ['AccountId is 12 digits', iamRole(['warehouse', 'accountId'], '12345'), '{Warehouse\\AccountId}', "invalid value '12345'. An AccountId is 12 digits"],
  ['RoleName characters', iamRole(['warehouse', 'roleName'], 'role name'), '{Warehouse\\RoleName}', 'A role name is 1-64 characters'],
  // The confused-deputy protection: a caller who could choose the ExternalId could name another customer's.
  ['ExternalId is never the caller\'s', iamRole(['warehouse', 'externalId'], 'svc-0123456789abcdef0123456789abcdef'), '{Warehouse\\ExternalId}', "is issued by the service for AccessType=IAMRole (Create's answer and Describe show it) and cannot be set"],
];

describe.each(FORMATS)('CreateWarehouseReplication rules (%s)', (format) => {
  it.each(CREATE_RULES)('%s', (_rule, path, value, label, reason) => {
    const problems = problemsOf(format, withChange(createAccessKeyTree(), path, value));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${escapeRegExp(label)}: `));
    expect(problems[0]).toContain(reason);
  });

  it.each(IAM_ROLE_RULES)('%s', (_rule, tree, label, reason) => {
    const problems = problemsOf(format, tree);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${escapeRegExp(label)}: `));
    expect(problems[0]).toContain(reason);
  });
});

describe('CreateWarehouseReplication: JSON-only shapes', () => {
  it.each([
    ['a fractional number', ['parallelTablesLimit'], 1.5, "{ParallelTablesLimit}: invalid value '1.5'. Must be a whole number from 1 to 2147483647"],
    ['a number for a boolean', ['rebuildIndexes'], 1, "{RebuildIndexes}: invalid value '1'. Must be true or false"],
    ['a list for a value', ['warehouse', 'bucketName'], ['a', 'b'], '{Warehouse\\BucketName}: must be a single value, not a list'],
    ['a list for a group', ['staging'], [{ connectionString: 'x' }], '{Staging}: must be a group of fields, not a list'],
    ['a boolean for text', ['warehouse', 'databaseName'], true, "{Warehouse\\DatabaseName}: invalid value 'true'. Must be text"],
    ['null for a required field', ['addUpdateTimestamp'], null, '{AddUpdateTimestamp}: is required'],
    ['a known name in PascalCase', ['ParallelTablesLimit'], 10, '{ParallelTablesLimit}: unknown field; JSON names start with a lower-case letter (parallelTablesLimit)'],
  ])('refuses %s', (_case, path, value, message) => {
    const tree = withChange(createAccessKeyTree(), path, value);
    const problems = problemsOf('json', tree);
    expect(problems).toContain(message);
  });

  it('refuses keys that would reach object prototypes', () => {
    const result = parseOperationRequest(OP, JSON.parse('{"source": {"__proto__": {"connectionString": "x"}}, "constructor": 1}'));
    expect(result).toEqual({ ok: false, messages: ['{Source\\__proto__}: unknown field', '{Constructor}: unknown field'] });
  });

  it('refuses absurd nesting before walking it', () => {
    let deep: Tree = { x: 1 };
    for (let level = 0; level < 10_000; level += 1) deep = { deeper: deep };
    const result = parseOperationRequest(OP, { ...createAccessKeyTree(), foo: deep });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.messages[0]).toMatch(/^\{Foo\\Deeper\\.*\}: is nested too deeply$/);
  });

  it('refuses lists nested absurdly deep, which would otherwise exhaust the stack', () => {
    let deep: unknown = [1];
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    const result = parseOperationRequest(OP, { ...createAccessKeyTree(), tablesToInclude: deep });
    expect(result).toEqual({ ok: false, messages: ['{TablesToInclude}: is nested too deeply'] });
  });

  it('refuses a flood of fields before validating them one by one', () => {
    const flood = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`extra${index}`, 'x']));
    const result = parseOperationRequest(OP, { ...createAccessKeyTree(), ...flood });
    expect(result).toEqual({ ok: false, messages: ['the request has more than 500 fields'] });
  });

  it('reports at most 100 problems, then how many more there were', () => {
    const extras = Object.fromEntries(Array.from({ length: 150 }, (_, index) => [`extra${index}`, 'x']));
    const result = parseOperationRequest(OP, { ...createAccessKeyTree(), ...extras });
    expect(!result.ok && result.messages).toHaveLength(101);
    expect(!result.ok && result.messages[100]).toBe('… and 50 more problems');
  });

  it('refuses a request that is not an object', () => {
    expect(parseOperationRequest(OP, 'text')).toEqual({ ok: false, messages: ['the request must be a group of fields'] });
  });
});

describe('CreateWarehouseReplication: every problem at once, no secret echoed', () => {
  const secrets = ['Src-Pa55-LEAK', 'AKIA LEAK', 'postgres://user:Wh-LEAK@', 'Wh-LEAK'];

  it.each(FORMATS)('reports each problem of a request once (%s)', (format) => {
    let tree = createAccessKeyTree();
    tree = withChange(tree, ['parallelTablesLimit'], REMOVE);
    tree = withChange(tree, ['warehouse', 'bucketName'], 'x y');
    tree = withChange(tree, ['warehouse', 'accountId'], '123456789012');
    tree = withChange(tree, ['warehouse', 'accessKey'], secrets[1]);
    tree = withChange(tree, ['warehouse', 'url'], secrets[2]);
    tree = withChange(tree, ['source', 'changeTrackingRetentionPeriod'], '2 WEEKS');
    tree = withChange(tree, ['reseedingSchedule', 'fromTime'], '25:00:00 AM');
    tree = withChange(tree, ['staging', 'extra'], 'x');
    const problems = problemsOf(format, tree);
    expect([...problems].sort()).toEqual(
      [
        '{ParallelTablesLimit}: is required',
        "{Warehouse\\BucketName}: invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'",
        '{Warehouse\\AccountId}: must not be given when AccessType is AccessKey',
        '{Warehouse\\AccessKey}: invalid value. An access key has no spaces or control characters',
        '{Warehouse\\Url}: invalid value. A warehouse URL must not carry a user name or password: give them in {Warehouse\\Username} and {Warehouse\\Password}',
        "{Source\\ChangeTrackingRetentionPeriod}: invalid value '2 WEEKS'. Must be one of 12 Hours, 1 Day, 2 Days, 3 Days, 4 Days, 5 Days, 6 Days, 7 Days, 8 Days",
        "{ReseedingSchedule\\FromTime}: invalid value '25:00:00 AM'. A time is hh:mm:ss AM or hh:mm:ss PM (hours 1-12), e.g. 02:00:00 AM",
        '{Staging\\Extra}: unknown field',
      ].sort(),
    );
    for (const secret of secrets) expect(problems.join('\n')).not.toContain(secret.trim());
  });

  it('never quotes a secret that is the wrong type', () => {
    const tree = withChange(createAccessKeyTree(), ['warehouse', 'password'], { value: 'Wh-LEAK' });
    const problems = problemsOf('json', tree);
    expect(problems).toEqual(['{Warehouse\\Password}: must be a single value, not a group of fields']);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
