import {
  type CreateReplicationResponse,
  type OperationName,
  type OperationRequest,
  type OperationResponse,
  type ValidationDescription,
} from '@svc/contracts';
import { validationOnWire } from './validation-wire';
import { contentTypeOf, type WireFormat } from './wire-format';
import { element, escapeText, xmlDocument } from './xml-writer';

export interface EncodedBody {
  contentType: string;
  body: string;
}

/**
 * A success response (seed §4): XML with declaration and root `<Op>Response`, or JSON with lower camel keys.
 * Operations without response fields (null) answer with an empty body.
 */
export function encodeResponse<Op extends OperationName>(operation: Op, format: WireFormat, response: OperationResponse<Op>): EncodedBody {
  if (response === null) return { contentType: contentTypeOf(format), body: '' };
  return encodeDocument(`${operation}Response`, format, responseContent(operation, response));
}

/** A request body as a client sends it; the CLI and round-trip tests use it. */
export function encodeRequest<Op extends OperationName>(operation: Op, format: WireFormat, request: OperationRequest<Op>): EncodedBody {
  return encodeDocument(`${operation}Request`, format, request);
}

/** The error body of seed §7: every problem of the request, and the id the gateway logged it under. */
export function encodeError(format: WireFormat, requestId: number, messages: string[]): EncodedBody {
  if (format === 'json') return { contentType: contentTypeOf(format), body: JSON.stringify({ errors: messages, requestId }) };
  const errors = messages.map((message) => element('Error', escapeText(message))).join('');
  const content = element('RequestId', String(requestId)) + element('Errors', errors);
  return { contentType: contentTypeOf(format), body: `<?xml version="1.0" encoding="UTF-8"?>\n${element('ErrorResponse', content)}` };
}

function encodeDocument(rootName: string, format: WireFormat, content: object): EncodedBody {
  const record = content as Record<string, unknown>;
  if (format === 'xml') return { contentType: contentTypeOf(format), body: xmlDocument(rootName, record) };
  return { contentType: contentTypeOf(format), body: JSON.stringify(record, (_key, value: unknown) => (value === null ? undefined : value)) };
}

function responseContent(operation: OperationName, response: object): object {
  if (operation === 'DescribeReplicationValidation') return validationOnWire(response as ValidationDescription);
  if (operation !== 'CreateWarehouseReplication') return response;
  // Seed §4.1 order; Note is always present, empty when there is nothing to say. Warehouse.ExternalId (IAMRole)
  // is this service's extension, after the seed's fields.
  const { replicationId, status, note, warehouse } = response as Partial<CreateReplicationResponse>;
  return { replicationId, status, note: note ?? '', ...(warehouse !== undefined && { warehouse: { externalId: warehouse.externalId } }) };
}
