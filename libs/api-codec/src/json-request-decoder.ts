import { decodeFailure, fieldPathLabel, lineAndColumn, type DecodeResult } from './decode-result';
import { repeatedJsonKeys } from './json-repeated-keys';
import { originalOffset, quoteBareGuids } from './json-bare-guids';
import { findJsonSyntaxError } from './json-syntax-error';

/** JSON request body → the object as sent (lower camel keys), bare GUIDs quoted first. */
export function decodeJsonRequest(text: string): DecodeResult {
  const quoted = quoteBareGuids(text);
  let document: unknown;
  try {
    document = JSON.parse(quoted.text);
  } catch {
    const syntax = findJsonSyntaxError(quoted.text);
    if (!syntax) return decodeFailure('invalid JSON');
    const { line, column } = lineAndColumn(text, originalOffset(quoted, syntax.offset));
    return decodeFailure(`invalid JSON at line ${line}, column ${column}: ${syntax.reason}`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return decodeFailure('the JSON body must be an object of fields');
  }
  const repeated = repeatedJsonKeys(quoted.text);
  if (repeated.length > 0) return { ok: false, messages: repeated.map((path) => `${fieldPathLabel(path)}: is given more than once`) };
  return { ok: true, tree: document as Record<string, unknown> };
}
