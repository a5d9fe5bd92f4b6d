import { type WireFormat } from '@svc/api-codec';
import { type OperationName } from '@svc/contracts';
import { parseOperationRequest } from './parse-operation-request';
import { GUID, bodyOf, decoded, type Tree } from './spec-support/seed-requests';

const FORMATS: WireFormat[] = ['xml', 'json'];

function parse(operation: OperationName, format: WireFormat, tree: Tree) {
  return parseOperationRequest(operation, decoded(operation, format, bodyOf(operation, format, tree)));
}

describe.each(FORMATS)('operations beyond Create and Alter (%s)', (format) => {
  it.each(['DescribeWarehouseReplication', 'DeleteWarehouseReplication'] as const)('%s needs a GUID ReplicationId', (operation) => {
    expect(parse(operation, format, { replicationId: GUID.toUpperCase() })).toEqual({ ok: true, value: { replicationId: GUID } });
    expect(parse(operation, format, {})).toEqual({ ok: false, messages: ['{ReplicationId}: is required'] });
    expect(parse(operation, format, { replicationId: '42' })).toEqual({
      ok: false,
      messages: ["{ReplicationId}: invalid value '42'. A ReplicationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
    });
    expect(parse(operation, format, { replicationId: GUID, force: 'true' })).toEqual({ ok: false, messages: ['{Force}: unknown field'] });
  });

  it.each(['ListWarehouseReplications', 'StopReplicationService'] as const)('%s takes no fields', (operation) => {
    expect(parse(operation, format, {})).toEqual({ ok: true, value: {} });
    expect(parse(operation, format, { replicationId: GUID })).toEqual({ ok: false, messages: ['{ReplicationId}: unknown field'] });
  });

  it('AcknowledgeAlerts takes a ReplicationId and, optionally, AlertIds separated by commas (issue 40)', () => {
    const other = '6f1c2b7a-0d4e-4f8a-9b3c-2e5d7a1f0c9b';
    expect(parse('AcknowledgeAlerts', format, { replicationId: GUID })).toEqual({ ok: true, value: { replicationId: GUID } });
    expect(parse('AcknowledgeAlerts', format, { replicationId: GUID, alertIds: `${GUID.toUpperCase()}, {${other}}` })).toEqual({
      ok: true,
      value: { replicationId: GUID, alertIds: [GUID, other] },
    });
    expect(parse('AcknowledgeAlerts', format, { replicationId: GUID, alertIds: `${GUID},7` })).toEqual({
      ok: false,
      messages: ["{AlertIds}: invalid value '7'. An AlertId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
    });
    expect(parse('AcknowledgeAlerts', format, { replicationId: GUID, alertIds: ' , ' })).toEqual({ ok: false, messages: ['{AlertIds}: must name at least one AlertId'] });
    expect(parse('AcknowledgeAlerts', format, { alertIds: GUID })).toEqual({ ok: false, messages: ['{ReplicationId}: is required'] });
  });

  it('StartReplication takes an optional ReplicationId', () => {
    expect(parse('StartReplication', format, {})).toEqual({ ok: true, value: {} });
    expect(parse('StartReplication', format, { replicationId: `{${GUID}}` })).toEqual({ ok: true, value: { replicationId: GUID } });
    expect(parse('StartReplication', format, { replicationId: 'all' })).toEqual({
      ok: false,
      messages: ["{ReplicationId}: invalid value 'all'. A ReplicationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
    });
  });

  it.each([
    [{ serializeReplications: 'TRUE' }, { serializeReplications: true }],
    [{ parallelDatabaseReplicationsLimit: '1' }, { parallelDatabaseReplicationsLimit: 1 }],
    [{ serializeReplications: 'false', parallelDatabaseReplicationsLimit: '4' }, { serializeReplications: false, parallelDatabaseReplicationsLimit: 4 }],
  ])('AlterConfiguration accepts %j', (tree, value) => {
    expect(parse('AlterConfiguration', format, tree)).toEqual({ ok: true, value });
  });

  it.each([
    [{}, '{SerializeReplications}: is required unless ParallelDatabaseReplicationsLimit is given'],
    [{ serializeReplications: 'sometimes' }, "{SerializeReplications}: invalid value 'sometimes'. Must be true or false"],
    [{ parallelDatabaseReplicationsLimit: '0' }, "{ParallelDatabaseReplicationsLimit}: invalid value '0'. Must be a whole number from 1 to 2147483647"],
    [{ parallelDatabaseReplicationsLimit: '2.5' }, "{ParallelDatabaseReplicationsLimit}: invalid value '2.5'. Must be a whole number from 1 to 2147483647"],
    [{ serializeReplications: 'true', maxReplications: '3' }, '{MaxReplications}: unknown field'],
  ])('AlterConfiguration refuses %j', (tree, message) => {
    expect(parse('AlterConfiguration', format, tree)).toEqual({ ok: false, messages: [message] });
  });
});

describe('empty bodies', () => {
  it.each(['ListWarehouseReplications', 'StopReplicationService', 'StartReplication'] as const)('%s accepts an empty body in both formats', (operation) => {
    for (const format of FORMATS) expect(parseOperationRequest(operation, decoded(operation, format, ''))).toEqual({ ok: true, value: {} });
  });

  it('AlterConfiguration reads an empty root element as a request without fields', () => {
    expect(parseOperationRequest('AlterConfiguration', decoded('AlterConfiguration', 'xml', '<AlterConfigurationRequest/>'))).toEqual({
      ok: false,
      messages: ['{SerializeReplications}: is required unless ParallelDatabaseReplicationsLimit is given'],
    });
  });
});
