import { decodeRequest, encodeRequest, type WireFormat } from '@svc/api-codec';
import { type OperationName } from '@svc/contracts';
import { parseOperationRequest } from './parse-operation-request';
import {
  ALTER_JSON_TEXT,
  CREATE_JSON_TEXT,
  alterAccessKeyTree,
  alterIamRoleTree,
  createAccessKeyTree,
  createIamRoleTree,
  decoded,
  toXml,
} from './spec-support/seed-requests';

function canonical<Op extends OperationName>(operation: Op, format: WireFormat, body: string) {
  const result = parseOperationRequest(operation, decoded(operation, format, body));
  if (!result.ok) throw new Error(result.messages.join(' | '));
  return result.value;
}

const CASES: Array<[string, OperationName, WireFormat, string]> = [
  ['Create, AccessKey, XML', 'CreateWarehouseReplication', 'xml', toXml('CreateWarehouseReplication', createAccessKeyTree())],
  ['Create, IAMRole, XML', 'CreateWarehouseReplication', 'xml', toXml('CreateWarehouseReplication', createIamRoleTree())],
  ['Create, JSON', 'CreateWarehouseReplication', 'json', CREATE_JSON_TEXT],
  ['Alter, AccessKey, XML', 'AlterWarehouseReplication', 'xml', toXml('AlterWarehouseReplication', alterAccessKeyTree())],
  ['Alter, IAMRole, XML', 'AlterWarehouseReplication', 'xml', toXml('AlterWarehouseReplication', alterIamRoleTree())],
  ['Alter, JSON', 'AlterWarehouseReplication', 'json', ALTER_JSON_TEXT],
];

describe('canonical requests', () => {
  it.each(CASES)('%s: parsing the canonical output again gives it back unchanged (the registry re-parses)', (_case, operation, format, body) => {
    const first = canonical(operation, format, body);
    // What the registry receives over NATS is the JSON of the canonical request.
    const overNats: unknown = JSON.parse(JSON.stringify(first));
    expect(parseOperationRequest(operation, overNats)).toEqual({ ok: true, value: first });
  });

  it.each(CASES)('%s: encodeRequest in either format decodes and parses back to the same request', (_case, operation, format, body) => {
    const first = canonical(operation, format, body);
    for (const target of ['xml', 'json'] as const) {
      const encoded = encodeRequest(operation, target, first);
      const tree = decodeRequest(operation, target, Buffer.from(encoded.body));
      expect(tree.ok && parseOperationRequest(operation, tree.tree)).toEqual({ ok: true, value: first });
    }
  });
});
