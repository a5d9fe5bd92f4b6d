import { encodeResponse, type WireFormat } from '@svc/api-codec';
import { type OperationName } from '@svc/contracts';
import { parseOperationRequest } from './parse-operation-request';
import { GUID, GUID_AS_WRITTEN, bodyOf, decoded, type Tree } from './spec-support/seed-requests';

const FORMATS: WireFormat[] = ['xml', 'json'];
const VALIDATION_ID = '9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c';
const TABLE_LIST_SYNTAX = 'Write All or a comma-separated list of [schema].[table]';

function parse(operation: OperationName, format: WireFormat, tree: Tree) {
  return parseOperationRequest(operation, decoded(operation, format, bodyOf(operation, format, tree)));
}

describe.each(FORMATS)('validation operations (%s)', (format) => {
  describe('StartReplicationValidation', () => {
    it.each([
      ['a ReplicationId alone: every table', { replicationId: GUID_AS_WRITTEN }, { replicationId: GUID }],
      [
        'tables as Create writes them, spaces around commas and a ] inside a name',
        { replicationId: GUID, tablesToInclude: ' [dbo].[Orders] ,[sales].[Order]]Lines]' },
        { replicationId: GUID, tablesToInclude: ['[dbo].[Orders]', '[sales].[Order]]Lines]'] },
      ],
      ['All, the same as leaving the tables out', { replicationId: GUID, tablesToInclude: 'all' }, { replicationId: GUID }],
    ])('reads %s', (_case, tree, value) => {
      const parsed = parse('StartReplicationValidation', format, tree);
      expect(parsed).toEqual({ ok: true, value });
      // The registry re-parses what the gateway sent: the canonical request reads back as itself.
      if (parsed.ok) expect(parseOperationRequest('StartReplicationValidation', JSON.parse(JSON.stringify(parsed.value)))).toEqual(parsed);
    });

    it.each([
      ['no ReplicationId', { tablesToInclude: '[dbo].[Orders]' }, '{ReplicationId}: is required'],
      ['a ReplicationId that is no GUID', { replicationId: 'orders' }, "{ReplicationId}: invalid value 'orders'. A ReplicationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
      ['a table without brackets', { replicationId: GUID, tablesToInclude: 'dbo.Orders' }, `{TablesToInclude}: invalid value 'dbo.Orders': entry 1 ('dbo.Orders') must be written [schema].[table]. ${TABLE_LIST_SYNTAX}`],
      ['an empty entry', { replicationId: GUID, tablesToInclude: '[dbo].[Orders],' }, `{TablesToInclude}: invalid value '[dbo].[Orders],': entry 2 is empty. ${TABLE_LIST_SYNTAX}`],
      ['All among tables', { replicationId: GUID, tablesToInclude: 'All, [dbo].[Orders]' }, `{TablesToInclude}: invalid value 'All, [dbo].[Orders]': entry 1 ('All') stands alone: All is not combined with tables. ${TABLE_LIST_SYNTAX}`],
      ['no table at all', { replicationId: GUID, tablesToInclude: ' ' }, `{TablesToInclude}: must name at least one table. ${TABLE_LIST_SYNTAX}`],
      ['a field of Describe', { replicationId: GUID, validationId: VALIDATION_ID }, '{ValidationId}: unknown field'],
    ])('refuses %s, naming the field', (_case, tree, message) => {
      expect(parse('StartReplicationValidation', format, tree)).toEqual({ ok: false, messages: [message] });
    });
  });

  describe('DescribeReplicationValidation', () => {
    it('reads a ReplicationId and an optional ValidationId, both GUIDs in any case, braces allowed', () => {
      expect(parse('DescribeReplicationValidation', format, { replicationId: GUID })).toEqual({ ok: true, value: { replicationId: GUID } });
      expect(parse('DescribeReplicationValidation', format, { replicationId: `{${GUID_AS_WRITTEN}}`, validationId: VALIDATION_ID.toUpperCase() })).toEqual({
        ok: true,
        value: { replicationId: GUID, validationId: VALIDATION_ID },
      });
    });

    it.each([
      ['no ReplicationId', { validationId: VALIDATION_ID }, '{ReplicationId}: is required'],
      ['a ValidationId that is no GUID', { replicationId: GUID, validationId: 'latest' }, "{ValidationId}: invalid value 'latest'. A ValidationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
      ['an empty ValidationId', { replicationId: GUID, validationId: '' }, "{ValidationId}: invalid value ''. A ValidationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
      ['a field of Start', { replicationId: GUID, tablesToInclude: '[dbo].[Orders]' }, '{TablesToInclude}: unknown field'],
    ])('refuses %s, naming the field', (_case, tree, message) => {
      expect(parse('DescribeReplicationValidation', format, tree)).toEqual({ ok: false, messages: [message] });
    });
  });

  describe('RepairReplication', () => {
    it.each([
      [
        'a ReplicationId and a ValidationId, GUIDs in any case, braces allowed: every Mismatched table',
        { replicationId: `{${GUID_AS_WRITTEN}}`, validationId: VALIDATION_ID.toUpperCase() },
        { replicationId: GUID, validationId: VALIDATION_ID },
      ],
      [
        'tables as Start writes them, a comma and a ] inside a name',
        { replicationId: GUID, validationId: VALIDATION_ID, tablesToInclude: ' [dbo].[Orders] ,[sales].[Order, Lines]]]' },
        { replicationId: GUID, validationId: VALIDATION_ID, tablesToInclude: ['[dbo].[Orders]', '[sales].[Order, Lines]]]'] },
      ],
      ['All, the same as leaving the tables out', { replicationId: GUID, validationId: VALIDATION_ID, tablesToInclude: 'ALL' }, { replicationId: GUID, validationId: VALIDATION_ID }],
    ])('reads %s', (_case, tree, value) => {
      const parsed = parse('RepairReplication', format, tree);
      expect(parsed).toEqual({ ok: true, value });
      if (parsed.ok) expect(parseOperationRequest('RepairReplication', JSON.parse(JSON.stringify(parsed.value)))).toEqual(parsed);
    });

    it.each([
      ['no ReplicationId', { validationId: VALIDATION_ID }, '{ReplicationId}: is required'],
      ['no ValidationId', { replicationId: GUID, tablesToInclude: '[dbo].[Orders]' }, '{ValidationId}: is required'],
      ['a ValidationId that is no GUID', { replicationId: GUID, validationId: 'latest' }, "{ValidationId}: invalid value 'latest'. A ValidationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
      ['an empty ValidationId', { replicationId: GUID, validationId: '' }, "{ValidationId}: invalid value ''. A ValidationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
      [
        'a table without brackets',
        { replicationId: GUID, validationId: VALIDATION_ID, tablesToInclude: 'dbo.Orders' },
        `{TablesToInclude}: invalid value 'dbo.Orders': entry 1 ('dbo.Orders') must be written [schema].[table]. ${TABLE_LIST_SYNTAX}`,
      ],
      ['no table at all', { replicationId: GUID, validationId: VALIDATION_ID, tablesToInclude: ' ' }, `{TablesToInclude}: must name at least one table. ${TABLE_LIST_SYNTAX}`],
    ])('refuses %s, naming the field', (_case, tree, message) => {
      expect(parse('RepairReplication', format, tree)).toEqual({ ok: false, messages: [message] });
    });

    it('takes back the Tables a repair answered in XML as its TablesToInclude', () => {
      const tables = ['[dbo].[Orders]', '[sales].[Order, Lines]]]'];
      const answered = encodeResponse('RepairReplication', 'xml', { replicationId: GUID, validationId: VALIDATION_ID, tables }).body;
      const tablesText = /<Tables>(.*)<\/Tables>/.exec(answered)?.[1];
      expect(parse('RepairReplication', format, { replicationId: GUID, validationId: VALIDATION_ID, tablesToInclude: tablesText })).toEqual({
        ok: true,
        value: { replicationId: GUID, validationId: VALIDATION_ID, tablesToInclude: tables },
      });
    });

    it('refuses every problem at once', () => {
      expect(parse('RepairReplication', format, { tablesToInclude: 'All, [dbo].[Orders]' })).toEqual({
        ok: false,
        messages: [
          '{ReplicationId}: is required',
          '{ValidationId}: is required',
          `{TablesToInclude}: invalid value 'All, [dbo].[Orders]': entry 1 ('All') stands alone: All is not combined with tables. ${TABLE_LIST_SYNTAX}`,
        ],
      });
    });
  });
});

describe('StartReplicationValidation in JSON', () => {
  it('also takes the tables as a list, and refuses a list that repeats one', () => {
    expect(parse('StartReplicationValidation', 'json', { replicationId: GUID, tablesToInclude: ['[dbo].[Orders]', ' [dbo].[Lines] '] })).toEqual({
      ok: true,
      value: { replicationId: GUID, tablesToInclude: ['[dbo].[Orders]', '[dbo].[Lines]'] },
    });
    expect(parse('StartReplicationValidation', 'json', { replicationId: GUID, tablesToInclude: ['[dbo].[Orders]', '[dbo].[Orders]'] })).toEqual({
      ok: false,
      messages: ['{TablesToInclude}: lists [dbo].[Orders] more than once'],
    });
    expect(parse('StartReplicationValidation', 'json', { replicationId: GUID, tablesToInclude: [] })).toEqual({
      ok: false,
      messages: [`{TablesToInclude}: must name at least one table. ${TABLE_LIST_SYNTAX}`],
    });
  });
});
