import { type WireFormat } from '@svc/api-codec';
import { type OperationName } from '@svc/contracts';
import { parseOperationRequest } from './parse-operation-request';
import { bodyOf, decoded, type Tree } from './spec-support/seed-requests';

const FORMATS: WireFormat[] = ['xml', 'json'];

function parse(operation: OperationName, format: WireFormat, tree: Tree) {
  return parseOperationRequest(operation, decoded(operation, format, bodyOf(operation, format, tree)));
}

describe.each(FORMATS)('access key operations (%s)', (format) => {
  it('CreateAccessKey reads a comma-separated operation list in any case, a scope, an expiry and a description', () => {
    const parsed = parse('CreateAccessKey', format, {
      allowedOperations: 'describewarehousereplication, ListWarehouseReplications,DescribeWarehouseReplication',
      replicationScope: 'all',
      expiresAt: '2027-01-31T01:00:00+01:00',
      description: 'dashboards',
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        allowedOperations: ['DescribeWarehouseReplication', 'ListWarehouseReplications'],
        replicationScope: 'All',
        expiresAt: '2027-01-31T00:00:00.000Z',
        description: 'dashboards',
      },
    });
    // The registry re-parses what the gateway sent: the canonical request reads back as itself.
    if (parsed.ok) expect(parseOperationRequest('CreateAccessKey', parsed.value)).toEqual(parsed);
    expect(parse('CreateAccessKey', format, { allowedOperations: '*' })).toEqual({ ok: true, value: { allowedOperations: ['*'] } });
  });

  it('CreateAccessKey names the field and the rule of each problem', () => {
    expect(parse('CreateAccessKey', format, { replicationScope: 'Everything', expiresAt: 'tomorrow' })).toEqual({
      ok: false,
      messages: [
        '{AllowedOperations}: is required',
        "{ReplicationScope}: invalid value 'Everything'. Must be one of Own, All",
        "{ExpiresAt}: invalid value 'tomorrow'. Must be an ISO 8601 date and time with its offset, such as 2027-01-31T00:00:00Z",
      ],
    });
    expect(parse('CreateAccessKey', format, { allowedOperations: 'ListWarehouseReplications,Nope' })).toMatchObject({
      ok: false,
      messages: [expect.stringMatching(/^\{AllowedOperations\}: entry 2 \('Nope'\) is not an operation\. Operations: CreateWarehouseReplication, /)],
    });
    expect(parse('CreateAccessKey', format, { allowedOperations: '*,ListAccessKeys' })).toEqual({
      ok: false,
      messages: ["{AllowedOperations}: '*' already allows every operation: give it alone"],
    });
    expect(parse('CreateAccessKey', format, { allowedOperations: 'ListAccessKeys', secretAccessKey: 'mine' })).toEqual({ ok: false, messages: ['{SecretAccessKey}: unknown field'] });
  });

  it('UpdateAccessKey needs a Status or an ExpiresAt; ExpiresAt may be Never', () => {
    expect(parse('UpdateAccessKey', format, { accessKeyId: 'SVCKEY', status: 'disabled' })).toEqual({ ok: true, value: { accessKeyId: 'SVCKEY', status: 'Disabled' } });
    expect(parse('UpdateAccessKey', format, { accessKeyId: 'SVCKEY', expiresAt: 'never' })).toEqual({ ok: true, value: { accessKeyId: 'SVCKEY', expiresAt: 'Never' } });
    expect(parse('UpdateAccessKey', format, { accessKeyId: 'SVCKEY' })).toEqual({ ok: false, messages: ['{Status}: is required unless ExpiresAt is given'] });
    expect(parse('UpdateAccessKey', format, { accessKeyId: 'SVC KEY', status: 'Paused' })).toEqual({
      ok: false,
      messages: [
        "{AccessKeyId}: invalid value 'SVC KEY'. An access key id is 1-128 characters without spaces, commas or slashes",
        "{Status}: invalid value 'Paused'. Must be one of Enabled, Disabled",
      ],
    });
    expect(parse('UpdateAccessKey', format, { accessKeyId: 'SVCKEY', expiresAt: '2027-13-01' })).toEqual({
      ok: false,
      messages: ["{ExpiresAt}: invalid value '2027-13-01'. Must be an ISO 8601 date and time with its offset, such as 2027-01-31T00:00:00Z, or Never"],
    });
  });

  it('RotateAccessKey takes OverlapMinutes from 0 to 10080; DeleteAccessKey an id; ListAccessKeys nothing', () => {
    expect(parse('RotateAccessKey', format, { accessKeyId: 'SVCKEY', overlapMinutes: '0' })).toEqual({ ok: true, value: { accessKeyId: 'SVCKEY', overlapMinutes: 0 } });
    expect(parse('RotateAccessKey', format, { accessKeyId: 'SVCKEY', overlapMinutes: '10081' })).toEqual({
      ok: false,
      messages: ["{OverlapMinutes}: invalid value '10081'. Must be a whole number from 0 to 10080"],
    });
    expect(parse('DeleteAccessKey', format, {})).toEqual({ ok: false, messages: ['{AccessKeyId}: is required'] });
    expect(parse('ListAccessKeys', format, {})).toEqual({ ok: true, value: {} });
    expect(parse('ListAccessKeys', format, { accessKeyId: 'SVCKEY' })).toEqual({ ok: false, messages: ['{AccessKeyId}: unknown field'] });
  });
});

describe('AllowedOperations in JSON', () => {
  it('may be a list', () => {
    expect(parseOperationRequest('CreateAccessKey', { allowedOperations: ['ListAccessKeys', 'listwarehousereplications'] })).toEqual({
      ok: true,
      value: { allowedOperations: ['ListAccessKeys', 'ListWarehouseReplications'] },
    });
    expect(parseOperationRequest('CreateAccessKey', { allowedOperations: [] })).toEqual({
      ok: false,
      messages: ["{AllowedOperations}: must name at least one operation. Write '*' alone, or operation names separated by commas"],
    });
  });
});
