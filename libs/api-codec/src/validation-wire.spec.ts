import { type RepairValidationResponse, type StartValidationResponse, type ValidationDescription } from '@svc/contracts';
import { encodeResponse } from './encode';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
const REPLICATION_ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const VALIDATION_ID = '9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c';

/** As the registry answers over NATS: a table's fields in another order than the reference lists them. */
const description: ValidationDescription = {
  tables: [
    {
      state: 'Mismatched',
      name: '[dbo].[Order Lines]',
      reason: null,
      rowsCompared: 1200,
      rowsEstimated: 1180,
      mismatchedKeys: 3,
      missingKeys: 1,
      extraKeys: 1,
      differentKeys: 1,
      unsettledKeys: 2,
      differingKeys: [
        { key: { order_id: '42', 'line no': '1' }, difference: 'missing' },
        { key: { order_id: '7', 'line no': null }, difference: 'extra' },
        { key: { order_id: 'a<b&c', 'line no': '' }, difference: 'different' },
      ],
      sourceVersion: '1876',
      startedAt: '2026-12-01T10:00:01.000Z',
      endedAt: '2026-12-01T10:00:09.000Z',
    },
    {
      name: '[dbo].[AuditLog]',
      state: 'Skipped',
      reason: 'no primary key: rows cannot be compared key by key',
      rowsCompared: 0,
      rowsEstimated: null,
      mismatchedKeys: 0,
      missingKeys: 0,
      extraKeys: 0,
      differentKeys: 0,
      unsettledKeys: 0,
      differingKeys: [],
      sourceVersion: null,
      startedAt: null,
      endedAt: null,
    },
  ],
  scheduled: false,
  requestedAt: '2026-12-01T10:00:00.000Z',
  validationId: VALIDATION_ID,
  replicationId: REPLICATION_ID,
};

describe('the validation operations on the wire', () => {
  it('renders StartReplicationValidationResponse with the new ValidationId', () => {
    const started: StartValidationResponse = { replicationId: REPLICATION_ID, validationId: VALIDATION_ID };
    expect(encodeResponse('StartReplicationValidation', 'xml', started).body).toBe(
      `${DECLARATION}<StartReplicationValidationResponse><ReplicationId>${REPLICATION_ID}</ReplicationId><ValidationId>${VALIDATION_ID}</ValidationId></StartReplicationValidationResponse>`,
    );
    expect(encodeResponse('StartReplicationValidation', 'json', started).body).toBe(`{"replicationId":"${REPLICATION_ID}","validationId":"${VALIDATION_ID}"}`);
  });

  it('renders RepairReplicationResponse with the tables queued as names, comma-joined in XML as every list of table names is', () => {
    const repaired: RepairValidationResponse = { replicationId: REPLICATION_ID, validationId: VALIDATION_ID, tables: ['[dbo].[Orders]', '[sales].[Order, Lines]]]'] };
    expect(encodeResponse('RepairReplication', 'xml', repaired).body).toBe(
      `${DECLARATION}<RepairReplicationResponse><ReplicationId>${REPLICATION_ID}</ReplicationId><ValidationId>${VALIDATION_ID}</ValidationId>` +
        '<Tables>[dbo].[Orders],[sales].[Order, Lines]]]</Tables></RepairReplicationResponse>',
    );
    expect(encodeResponse('RepairReplication', 'json', repaired).body).toBe(
      `{"replicationId":"${REPLICATION_ID}","validationId":"${VALIDATION_ID}","tables":["[dbo].[Orders]","[sales].[Order, Lines]]]"]}`,
    );
  });

  it('renders each table as a Table and each differing key as its columns, in the reference order, nulls left out (XML)', () => {
    expect(encodeResponse('DescribeReplicationValidation', 'xml', description).body).toBe(
      `${DECLARATION}<DescribeReplicationValidationResponse>` +
        `<ReplicationId>${REPLICATION_ID}</ReplicationId><ValidationId>${VALIDATION_ID}</ValidationId>` +
        '<RequestedAt>2026-12-01T10:00:00.000Z</RequestedAt><Scheduled>false</Scheduled>' +
        '<Tables>' +
        '<Table><Name>[dbo].[Order Lines]</Name><State>Mismatched</State><RowsCompared>1200</RowsCompared><RowsEstimated>1180</RowsEstimated>' +
        '<MismatchedKeys>3</MismatchedKeys><MissingKeys>1</MissingKeys><ExtraKeys>1</ExtraKeys><DifferentKeys>1</DifferentKeys><UnsettledKeys>2</UnsettledKeys>' +
        '<DifferingKeys>' +
        '<DifferingKey><Key><Column><Name>order_id</Name><Value>42</Value></Column><Column><Name>line no</Name><Value>1</Value></Column></Key><Difference>missing</Difference></DifferingKey>' +
        '<DifferingKey><Key><Column><Name>order_id</Name><Value>7</Value></Column><Column><Name>line no</Name></Column></Key><Difference>extra</Difference></DifferingKey>' +
        '<DifferingKey><Key><Column><Name>order_id</Name><Value>a&lt;b&amp;c</Value></Column><Column><Name>line no</Name><Value/></Column></Key><Difference>different</Difference></DifferingKey>' +
        '</DifferingKeys>' +
        '<SourceVersion>1876</SourceVersion><StartedAt>2026-12-01T10:00:01.000Z</StartedAt><EndedAt>2026-12-01T10:00:09.000Z</EndedAt></Table>' +
        '<Table><Name>[dbo].[AuditLog]</Name><State>Skipped</State><Reason>no primary key: rows cannot be compared key by key</Reason><RowsCompared>0</RowsCompared>' +
        '<MismatchedKeys>0</MismatchedKeys><MissingKeys>0</MissingKeys><ExtraKeys>0</ExtraKeys><DifferentKeys>0</DifferentKeys><UnsettledKeys>0</UnsettledKeys>' +
        '<DifferingKeys/></Table>' +
        '</Tables></DescribeReplicationValidationResponse>',
    );
  });

  it('renders the same structure in JSON: a NULL key column has no value, an empty one an empty value', () => {
    expect(JSON.parse(encodeResponse('DescribeReplicationValidation', 'json', description).body)).toEqual({
      replicationId: REPLICATION_ID,
      validationId: VALIDATION_ID,
      requestedAt: '2026-12-01T10:00:00.000Z',
      scheduled: false,
      tables: [
        {
          name: '[dbo].[Order Lines]',
          state: 'Mismatched',
          rowsCompared: 1200,
          rowsEstimated: 1180,
          mismatchedKeys: 3,
          missingKeys: 1,
          extraKeys: 1,
          differentKeys: 1,
          unsettledKeys: 2,
          differingKeys: [
            { key: [{ name: 'order_id', value: '42' }, { name: 'line no', value: '1' }], difference: 'missing' },
            { key: [{ name: 'order_id', value: '7' }, { name: 'line no' }], difference: 'extra' },
            { key: [{ name: 'order_id', value: 'a<b&c' }, { name: 'line no', value: '' }], difference: 'different' },
          ],
          sourceVersion: '1876',
          startedAt: '2026-12-01T10:00:01.000Z',
          endedAt: '2026-12-01T10:00:09.000Z',
        },
        {
          name: '[dbo].[AuditLog]',
          state: 'Skipped',
          reason: 'no primary key: rows cannot be compared key by key',
          rowsCompared: 0,
          mismatchedKeys: 0,
          missingKeys: 0,
          extraKeys: 0,
          differentKeys: 0,
          unsettledKeys: 0,
          differingKeys: [],
        },
      ],
    });
    // Same order as the XML.
    expect(Object.keys((JSON.parse(encodeResponse('DescribeReplicationValidation', 'json', description).body) as { tables: object[] }).tables[0] ?? {})).toEqual([
      'name',
      'state',
      'rowsCompared',
      'rowsEstimated',
      'mismatchedKeys',
      'missingKeys',
      'extraKeys',
      'differentKeys',
      'unsettledKeys',
      'differingKeys',
      'sourceVersion',
      'startedAt',
      'endedAt',
    ]);
  });
});
