import { XMLParser } from 'fast-xml-parser';
import { UsageError } from '../exit-codes';
import { buildFieldTree } from './field-tree';
import { operationFromXml, prepareRequest } from './request-body';

const alterFields = [
  { path: ['replicationId'], value: '0c5e2f0e-8c4b-4a8e-9d51-0d8f5d1f0b7a' },
  { path: ['Warehouse', 'BucketName'], value: 'my-bucket' },
  { path: ['warehouse', 'retentionDays'], value: '7' },
  { path: ['ReseedingSchedule', 'FromTime'], value: '12:00:00 AM' },
  { path: ['tablesToInclude'], value: '[dbo].[a] & <b>' },
];

describe('prepareRequest with --set fields', () => {
  it('builds a lower-case-first JSON object with the values as given', () => {
    const request = prepareRequest({ operation: 'AlterWarehouseReplication', source: { kind: 'fields', assignments: alterFields } });
    expect(request.operation).toBe('AlterWarehouseReplication');
    expect(request.contentType).toBe('application/json');
    expect(JSON.parse(request.body.toString('utf8'))).toEqual({
      replicationId: '0c5e2f0e-8c4b-4a8e-9d51-0d8f5d1f0b7a',
      warehouse: { bucketName: 'my-bucket', retentionDays: '7' },
      reseedingSchedule: { fromTime: '12:00:00 AM' },
      tablesToInclude: '[dbo].[a] & <b>',
    });
  });

  it('renders the same tree as PascalCase XML under <OperationRequest>, escaping text', () => {
    const request = prepareRequest({
      operation: 'AlterWarehouseReplication',
      format: 'xml',
      source: { kind: 'fields', assignments: alterFields },
    });
    expect(request.contentType).toBe('application/xml');
    const xml = request.body.toString('utf8');
    expect(xml).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<AlterWarehouseReplicationRequest>',
        '  <ReplicationId>0c5e2f0e-8c4b-4a8e-9d51-0d8f5d1f0b7a</ReplicationId>',
        '  <Warehouse>',
        '    <BucketName>my-bucket</BucketName>',
        '    <RetentionDays>7</RetentionDays>',
        '  </Warehouse>',
        '  <ReseedingSchedule>',
        '    <FromTime>12:00:00 AM</FromTime>',
        '  </ReseedingSchedule>',
        '  <TablesToInclude>[dbo].[a] &amp; &lt;b&gt;</TablesToInclude>',
        '</AlterWarehouseReplicationRequest>',
        '',
      ].join('\n'),
    );
    // A real XML parser reads back the original values.
    const parsed = new XMLParser({ parseTagValue: false }).parse(xml) as Record<string, Record<string, unknown>>;
    expect(parsed['AlterWarehouseReplicationRequest']?.['TablesToInclude']).toBe('[dbo].[a] & <b>');
  });

  it('sends an empty object or an empty root element when there are no fields', () => {
    expect(prepareRequest({ operation: 'ListWarehouseReplications', source: { kind: 'fields', assignments: [] } }).body.toString()).toBe('{}');
    const xml = prepareRequest({ operation: 'StopReplicationService', format: 'xml', source: { kind: 'fields', assignments: [] } });
    expect(operationFromXml(xml.body.toString())).toBe('StopReplicationService');
  });

  it('needs an operation', () => {
    expect(() => prepareRequest({ source: { kind: 'fields', assignments: [] } })).toThrow(UsageError);
  });
});

describe('buildFieldTree', () => {
  it.each([
    [[{ path: ['a'], value: '1' }, { path: ['A'], value: '2' }], 'given more than once'],
    [[{ path: ['a'], value: '1' }, { path: ['a', 'b'], value: '2' }], 'already has a value'],
    [[{ path: ['a', 'b'], value: '1' }, { path: ['a'], value: '2' }], 'already holds fields'],
  ])('rejects conflicting paths %j', (assignments, message) => {
    expect(() => buildFieldTree(assignments)).toThrow(message);
  });
});

describe('prepareRequest with a file or text body', () => {
  const xmlBody = Buffer.from('<?xml version="1.0"?>\r\n<!-- note -->\n<CreateWarehouseReplicationRequest><ParallelTablesLimit>10</ParallelTablesLimit></CreateWarehouseReplicationRequest>');

  it('sends a file byte for byte and infers the operation from the XML root element', () => {
    const request = prepareRequest({ source: { kind: 'file', path: 'dir/Body.XML', content: xmlBody } });
    expect(request).toEqual({ operation: 'CreateWarehouseReplication', contentType: 'application/xml', body: xmlBody });
    expect(request.body).toBe(xmlBody);
  });

  it('takes JSON from the .json extension and keeps the named operation', () => {
    const content = Buffer.from('{ "replicationId": 5 }\n');
    expect(prepareRequest({ operation: 'DescribeWarehouseReplication', source: { kind: 'file', path: 'd.json', content } })).toEqual({
      operation: 'DescribeWarehouseReplication',
      contentType: 'application/json',
      body: content,
    });
  });

  it('uses --format only for an extension it cannot read, and refuses a contradiction', () => {
    const content = Buffer.from('<ListWarehouseReplicationsRequest/>');
    expect(prepareRequest({ format: 'xml', source: { kind: 'file', path: 'body.txt', content } }).operation).toBe('ListWarehouseReplications');
    expect(() => prepareRequest({ source: { kind: 'file', path: 'body.txt', content } })).toThrow('cannot tell the format');
    expect(() => prepareRequest({ format: 'json', source: { kind: 'file', path: 'body.xml', content } })).toThrow('contradicts');
  });

  it('infers the format of --body text from its first character', () => {
    const xml = prepareRequest({ source: { kind: 'text', text: '  <svc:StartReplicationRequest xmlns:svc="urn:x"/>' } });
    expect(xml).toMatchObject({ operation: 'StartReplication', contentType: 'application/xml' });
    const json = prepareRequest({ operation: 'StartReplication', source: { kind: 'text', text: '{"replicationId":"x"}' } });
    expect(json).toMatchObject({ contentType: 'application/json' });
    expect(json.body.toString()).toBe('{"replicationId":"x"}');
  });

  it('cannot infer the operation from JSON or from an unknown root element', () => {
    expect(() => prepareRequest({ source: { kind: 'text', text: '{}' } })).toThrow('only be inferred from an XML body');
    expect(() => prepareRequest({ source: { kind: 'text', text: '<FrobRequest/>' } })).toThrow('<FrobRequest>');
    expect(() => prepareRequest({ source: { kind: 'text', text: '<' } })).toThrow(UsageError);
  });
});
