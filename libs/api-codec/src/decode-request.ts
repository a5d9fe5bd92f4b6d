import { type OperationName } from '@svc/contracts';
import { decodeFailure, type DecodeResult } from './decode-result';
import { decodeJsonRequest } from './json-request-decoder';
import { structureLimitProblem } from './structure-limits';
import { MAX_BODY_BYTES, type WireFormat } from './wire-format';
import { decodeXmlRequest } from './xml-request-decoder';

/** Operations whose every field is optional: an empty body is a complete request. */
const EMPTY_BODY_ALLOWED: ReadonlySet<OperationName> = new Set<OperationName>([
  'ListWarehouseReplications',
  'StopReplicationService',
  'StartReplication',
  'ListAccessKeys',
]);

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Request body → raw tree with lower camel keys, values as sent (XML: strings, '' for an empty element).
 * Field rules are the API model's business; this only reads the format and refuses unsafe input.
 */
export function decodeRequest(operation: OperationName, format: WireFormat, body: Buffer): DecodeResult {
  if (body.length > MAX_BODY_BYTES) return decodeFailure(`the request body is larger than ${MAX_BODY_BYTES} bytes`);
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return decodeFailure('the request body is not valid UTF-8');
  }
  if (text.trim() === '') {
    if (EMPTY_BODY_ALLOWED.has(operation)) return { ok: true, tree: {} };
    return decodeFailure(
      format === 'xml' ? `the request body is empty; expected a <${operation}Request> element` : 'the request body is empty; expected a JSON object',
    );
  }
  const tooLarge = structureLimitProblem(format, text);
  if (tooLarge !== null) return decodeFailure(tooLarge);
  return format === 'xml' ? decodeXmlRequest(`${operation}Request`, text) : decodeJsonRequest(text);
}
