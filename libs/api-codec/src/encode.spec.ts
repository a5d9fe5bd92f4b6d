import { XMLParser } from 'fast-xml-parser';
import {
  type CreateReplicationRequest,
  type ListReplicationsResponse,
  type ReplicationDescription,
} from '@svc/contracts';
import { decodeRequest } from './decode-request';
import { encodeError, encodeRequest, encodeResponse } from './encode';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
const GUID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

describe('encodeResponse', () => {
  it('renders CreateWarehouseReplicationResponse as in seed §4.1, with an empty Note element', () => {
    const response = { replicationId: GUID, status: 'Running' as const, note: '' };
    expect(encodeResponse('CreateWarehouseReplication', 'xml', response)).toEqual({
      contentType: 'application/xml; charset=utf-8',
      body: `${DECLARATION}<CreateWarehouseReplicationResponse><ReplicationId>${GUID}</ReplicationId><Status>Running</Status><Note/></CreateWarehouseReplicationResponse>`,
    });
    expect(encodeResponse('CreateWarehouseReplication', 'json', response)).toEqual({
      contentType: 'application/json; charset=utf-8',
      body: `{"replicationId":"${GUID}","status":"Running","note":""}`,
    });
  });

  it('adds Warehouse.ExternalId of an IAMRole replication after the seed fields, in both encodings', () => {
    const response = { replicationId: GUID, status: 'Running' as const, note: '', warehouse: { externalId: 'svc-0123456789abcdef0123456789abcdef' } };
    expect(encodeResponse('CreateWarehouseReplication', 'xml', response).body).toBe(
      `${DECLARATION}<CreateWarehouseReplicationResponse><ReplicationId>${GUID}</ReplicationId><Status>Running</Status><Note/>` +
        '<Warehouse><ExternalId>svc-0123456789abcdef0123456789abcdef</ExternalId></Warehouse></CreateWarehouseReplicationResponse>',
    );
    expect(encodeResponse('CreateWarehouseReplication', 'json', response).body).toBe(
      `{"replicationId":"${GUID}","status":"Running","note":"","warehouse":{"externalId":"svc-0123456789abcdef0123456789abcdef"}}`,
    );
  });

  it('keeps the seed order and the Note even when the registry left it out', () => {
    const unordered = { status: 'Running', replicationId: GUID } as unknown as { replicationId: string; status: 'Running'; note: string };
    expect(encodeResponse('CreateWarehouseReplication', 'json', unordered).body).toBe(`{"replicationId":"${GUID}","status":"Running","note":""}`);
  });

  it('escapes text and replaces characters XML cannot carry', () => {
    const response = { replicationId: GUID, status: 'Running' as const, note: 'a < b & c > d \u0001' };
    expect(encodeResponse('CreateWarehouseReplication', 'xml', response).body).toContain('<Note>a &lt; b &amp; c &gt; d \uFFFD</Note>');
  });

  it('answers operations without response fields with an empty body', () => {
    expect(encodeResponse('AlterWarehouseReplication', 'xml', null)).toEqual({ contentType: 'application/xml; charset=utf-8', body: '' });
    expect(encodeResponse('StopReplicationService', 'json', null)).toEqual({ contentType: 'application/json; charset=utf-8', body: '' });
  });

  it('renders a list as a container with one element per item', () => {
    const response: ListReplicationsResponse = {
      replications: [
        { replicationId: GUID, replicationName: 'Sales', status: 'Running', tableCount: 3, tablesInError: 3, statusDetail: 'every table (3) is in Error' },
        { replicationId: '11111111-2222-3333-4444-555555555555', replicationName: 'HR & Pay', status: 'Stopped', tableCount: 1, tablesInError: 0 },
      ],
    };
    expect(encodeResponse('ListWarehouseReplications', 'xml', response).body).toBe(
      `${DECLARATION}<ListWarehouseReplicationsResponse><Replications>` +
        `<Replication><ReplicationId>${GUID}</ReplicationId><ReplicationName>Sales</ReplicationName><Status>Running</Status>` +
        '<TableCount>3</TableCount><TablesInError>3</TablesInError><StatusDetail>every table (3) is in Error</StatusDetail></Replication>' +
        '<Replication><ReplicationId>11111111-2222-3333-4444-555555555555</ReplicationId><ReplicationName>HR &amp; Pay</ReplicationName><Status>Stopped</Status>' +
        '<TableCount>1</TableCount><TablesInError>0</TablesInError></Replication>' +
        '</Replications></ListWarehouseReplicationsResponse>',
    );
    expect(JSON.parse(encodeResponse('ListWarehouseReplications', 'json', response).body)).toEqual(response);
    expect(encodeResponse('ListWarehouseReplications', 'xml', { replications: [] }).body).toBe(
      `${DECLARATION}<ListWarehouseReplicationsResponse><Replications/></ListWarehouseReplicationsResponse>`,
    );
  });

  const description: ReplicationDescription = {
    replicationId: GUID,
    replicationName: 'Sales',
    status: 'Running',
    tableCount: 2,
    tablesInError: 0,
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-02T10:00:00.000Z',
    configuration: {
      replicationName: 'Sales',
      parallelTablesLimit: 10,
      rebuildIndexes: false,
      source: { connectionString: '********', encryptDataInTransit: true, changeTrackingRetentionPeriod: '2 Days' },
      staging: { connectionString: '********', encryptDataInTransit: true, replicateCompatibilityLevel: false },
      warehouse: {
        accessType: 'IAMRole',
        accountId: '123456789012',
        roleName: 'RedshiftCopy',
        bucketName: 'replication-bucket',
        bucketFolderName: '/replications/sales',
        regionEndpoint: 'us-east-1',
        retentionDays: 7,
        url: 'examplecluster.abc123.us-east-1.redshift.amazonaws.com:5439',
        databaseSchema: 'public',
        databaseName: 'dev',
        username: 'awsuser',
        password: '********',
        scdType: 'Type2',
        timeoutInMins: 60,
      },
      addUpdateTimestamp: true,
      tablesToInclude: ['[dbo].[Orders]', '[dbo].[Customers]'],
      reseedingSchedule: {
        noPkTablesToInclude: [],
        pkTablesToInclude: 'All',
        fromTime: '02:00:00 AM',
        toTime: '04:00:00 AM',
        repeatIntervalInMinutes: 1440,
      },
      dataReplication: true,
      schemaReplication: true,
      changeTrackingBatchLimit: 500000,
      ctProcessTimeoutInMinutes: 30,
      serializedCtProcessTimeoutInMinutes: 30,
      autoSerializedCtProcessTimeoutInMinutes: 30,
      isContinuous: true,
      isLogErrorsOnly: true,
      alertOnSuccessfulTableSchemaChanges: false,
    },
    tables: [
      { name: '[dbo].[Orders]', phase: 'Tracking', rowsSeeded: 1200, rowsEstimated: 1200, lastVersion: '42', lagSeconds: 3, lastError: null },
      { name: '[dbo].[AuditLog]', phase: 'Untracked', rowsSeeded: 10, rowsEstimated: 10, lastVersion: null, lagSeconds: null, lastError: null },
    ],
    lastError: null,
    alerts: [{ alertId: 'a1', replicationId: GUID, kind: 'SchemaChange', message: 'column added', createdAt: '2024-05-02T09:00:00.000Z', state: 'Active' }],
  };

  it('renders Describe with nested groups, lists, table selections as text and booleans as true/false', () => {
    const { body } = encodeResponse('DescribeWarehouseReplication', 'xml', description);
    expect(body).toContain('<TablesToInclude>[dbo].[Orders],[dbo].[Customers]</TablesToInclude>');
    expect(body).toContain('<NoPkTablesToInclude/><PkTablesToInclude>All</PkTablesToInclude>');
    expect(body).toContain('<RebuildIndexes>false</RebuildIndexes>');
    expect(body).toContain('<Warehouse><AccessType>IAMRole</AccessType><AccountId>123456789012</AccountId>');
    expect(body).toContain('<Tables><Table><Name>[dbo].[Orders]</Name><Phase>Tracking</Phase>');
    expect(body).toContain('<Alerts><Alert><AlertId>a1</AlertId>');
    // Null fields are left out.
    expect(body).not.toContain('LastError');
    expect(body).toContain('<Table><Name>[dbo].[AuditLog]</Name><Phase>Untracked</Phase><RowsSeeded>10</RowsSeeded><RowsEstimated>10</RowsEstimated></Table>');
  });

  it('round-trips Describe through XML', () => {
    const parsed = new XMLParser({ parseTagValue: false, isArray: (name) => ['Table', 'Alert'].includes(name) }).parse(
      encodeResponse('DescribeWarehouseReplication', 'xml', description).body,
    ) as { DescribeWarehouseReplicationResponse: Record<string, unknown> };
    const root = parsed.DescribeWarehouseReplicationResponse;
    expect(root['ReplicationId']).toBe(GUID);
    expect((root['Configuration'] as Record<string, Record<string, unknown>>)['Warehouse']).toMatchObject({ RetentionDays: '7', ScdType: 'Type2', TimeoutInMins: '60' });
    expect((root['Tables'] as { Table: unknown[] }).Table).toHaveLength(2);
    expect((root['Alerts'] as { Alert: Array<Record<string, unknown>> }).Alert[0]).toEqual({
      AlertId: 'a1',
      ReplicationId: GUID,
      Kind: 'SchemaChange',
      Message: 'column added',
      CreatedAt: '2024-05-02T09:00:00.000Z',
      State: 'Active',
    });
  });

  it('round-trips Describe through JSON, leaving out nulls', () => {
    const parsed = JSON.parse(encodeResponse('DescribeWarehouseReplication', 'json', description).body) as Record<string, unknown>;
    const expected: Record<string, unknown> = { ...description };
    delete expected['lastError'];
    expect(parsed).toEqual({
      ...expected,
      tables: [
        { name: '[dbo].[Orders]', phase: 'Tracking', rowsSeeded: 1200, rowsEstimated: 1200, lastVersion: '42', lagSeconds: 3 },
        { name: '[dbo].[AuditLog]', phase: 'Untracked', rowsSeeded: 10, rowsEstimated: 10 },
      ],
    });
  });

  describe('an error and its detail (issue 19)', () => {
    const reason = 'Warehouse: a value does not fit its column or breaks a constraint in [dbo].[Orders] (values are not shown)';
    const detail = 'invalid input syntax for type integer: "<b>&x</b>"';
    const failed: ReplicationDescription = {
      ...description,
      tables: [{ ...description.tables[0], phase: 'Error', lastError: reason, lastErrorDetail: detail }],
      lastError: 'Warehouse: authentication failed',
      lastErrorDetail: 'password authentication failed for user "loader"',
    };

    it('renders LastErrorDetail next to LastError in XML, escaped', () => {
      const { body } = encodeResponse('DescribeWarehouseReplication', 'xml', failed);
      expect(body).toContain(`<LastError>${reason}</LastError><LastErrorDetail>invalid input syntax for type integer: "&lt;b&gt;&amp;x&lt;/b&gt;"</LastErrorDetail>`);
      expect(body).toContain('<LastError>Warehouse: authentication failed</LastError>');
      expect(body).toContain('<LastErrorDetail>password authentication failed for user "loader"</LastErrorDetail>');
    });

    it('renders lastErrorDetail in JSON', () => {
      const parsed = JSON.parse(encodeResponse('DescribeWarehouseReplication', 'json', failed).body) as ReplicationDescription;
      expect(parsed.lastErrorDetail).toBe('password authentication failed for user "loader"');
      expect(parsed.tables[0]).toMatchObject({ lastError: reason, lastErrorDetail: detail });
    });

    it('leaves it out when the caller may not see it (the registry left it out)', () => {
      const { body } = encodeResponse('DescribeWarehouseReplication', 'xml', { ...failed, lastErrorDetail: null, tables: [{ ...failed.tables[0], lastErrorDetail: null }] });
      expect(body).not.toContain('LastErrorDetail');
    });
  });
});

describe('encodeError', () => {
  const messages = ["{Warehouse\\BucketName}: invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'", '{ParallelTablesLimit}: is required'];

  it('renders the XML error body of seed §7', () => {
    expect(encodeError('xml', 17, messages)).toEqual({
      contentType: 'application/xml; charset=utf-8',
      body:
        `${DECLARATION}<ErrorResponse><RequestId>17</RequestId><Errors>` +
        "<Error>{Warehouse\\BucketName}: invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'</Error>" +
        '<Error>{ParallelTablesLimit}: is required</Error></Errors></ErrorResponse>',
    });
  });

  it('renders the JSON error body of seed §7', () => {
    const encoded = encodeError('json', 17, messages);
    expect(encoded.contentType).toBe('application/json; charset=utf-8');
    expect(encoded.body).toBe(JSON.stringify({ errors: messages, requestId: 17 }));
    expect(encoded.body.startsWith('{"errors":[')).toBe(true);
  });

  it('escapes message text in XML', () => {
    expect(encodeError('xml', 1, ['a <b> & c']).body).toContain('<Error>a &lt;b&gt; &amp; c</Error>');
  });
});

describe('encodeRequest', () => {
  const create: CreateReplicationRequest = {
    parallelTablesLimit: 10,
    rebuildIndexes: false,
    source: { connectionString: 'Server=src;Password=p<&>', encryptDataInTransit: true, changeTrackingRetentionPeriod: '2 Days', resetChangeTracking: false },
    staging: { connectionString: 'postgres://stage/db', encryptDataInTransit: false, replicateCompatibilityLevel: true },
    warehouse: {
      accessType: 'AccessKey',
      accessKey: 'AKIAEXAMPLE',
      secretKey: 'secret',
      bucketName: 'replication-bucket',
      bucketFolderName: '/replications/sales',
      regionEndpoint: 'us-east-1',
      retentionDays: 7,
      url: 'warehouse.example.com:5439',
      databaseSchema: 'public',
      databaseName: 'dev',
      username: 'awsuser',
      password: 'pw',
      scdType: 'Type1',
    },
    addUpdateTimestamp: true,
    tablesToInclude: ['[dbo].[Orders]', '[dbo].[Customers]'],
  };

  it('writes an XML request that decodes back to the same fields as text', () => {
    const encoded = encodeRequest('CreateWarehouseReplication', 'xml', create);
    expect(encoded.body.startsWith(`${DECLARATION}<CreateWarehouseReplicationRequest><ParallelTablesLimit>10</ParallelTablesLimit>`)).toBe(true);
    const decoded = decodeRequest('CreateWarehouseReplication', 'xml', Buffer.from(encoded.body));
    expect(decoded).toEqual({
      ok: true,
      tree: {
        parallelTablesLimit: '10',
        rebuildIndexes: 'false',
        source: { connectionString: 'Server=src;Password=p<&>', encryptDataInTransit: 'true', changeTrackingRetentionPeriod: '2 Days', resetChangeTracking: 'false' },
        staging: { connectionString: 'postgres://stage/db', encryptDataInTransit: 'false', replicateCompatibilityLevel: 'true' },
        warehouse: {
          accessType: 'AccessKey',
          accessKey: 'AKIAEXAMPLE',
          secretKey: 'secret',
          bucketName: 'replication-bucket',
          bucketFolderName: '/replications/sales',
          regionEndpoint: 'us-east-1',
          retentionDays: '7',
          url: 'warehouse.example.com:5439',
          databaseSchema: 'public',
          databaseName: 'dev',
          username: 'awsuser',
          password: 'pw',
          scdType: 'Type1',
        },
        addUpdateTimestamp: 'true',
        tablesToInclude: '[dbo].[Orders],[dbo].[Customers]',
      },
    });
  });

  it('writes a JSON request that decodes back to the same object', () => {
    const encoded = encodeRequest('CreateWarehouseReplication', 'json', create);
    expect(decodeRequest('CreateWarehouseReplication', 'json', Buffer.from(encoded.body))).toEqual({ ok: true, tree: create });
  });

  it('writes an empty request as an empty root element', () => {
    expect(encodeRequest('ListWarehouseReplications', 'xml', {}).body).toBe(`${DECLARATION}<ListWarehouseReplicationsRequest/>`);
    expect(encodeRequest('ListWarehouseReplications', 'json', {}).body).toBe('{}');
  });
});
