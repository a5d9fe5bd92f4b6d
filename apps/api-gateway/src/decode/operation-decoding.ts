import { decodeRequest, type WireFormat } from '@svc/api-codec';
import { parseOperationRequest } from '@svc/api-model';
import { isOperationName, type OperationName, type OperationRequest } from '@svc/contracts';

/** One request body to read, as posted to a decode thread (the bytes are copied, not shared). */
export interface DecodeTask {
  operation: OperationName;
  format: WireFormat;
  body: Uint8Array;
}

export type DecodeOutcome = { ok: true; payload: OperationRequest<OperationName> } | { ok: false; messages: string[] };

/** As many problems as any real request can have; a hostile body's flood of them is summarised. */
export const MAX_REPORTED_PROBLEMS = 100;

/** Body bytes → the operation's canonical request, or every problem found (codec first, then the API model). */
export function decodeOperationRequest(task: DecodeTask): DecodeOutcome {
  if (!isOperationName(task.operation) || (task.format !== 'xml' && task.format !== 'json') || !(task.body instanceof Uint8Array)) {
    throw new Error('malformed decode task');
  }
  const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
  const decoded = decodeRequest(task.operation, task.format, body);
  if (!decoded.ok) return { ok: false, messages: summarised(decoded.messages) };
  const parsed = parseOperationRequest(task.operation, decoded.tree);
  return parsed.ok ? { ok: true, payload: parsed.value } : { ok: false, messages: summarised(parsed.messages) };
}

function summarised(messages: string[]): string[] {
  if (messages.length <= MAX_REPORTED_PROBLEMS) return messages;
  return [...messages.slice(0, MAX_REPORTED_PROBLEMS), `… and ${messages.length - MAX_REPORTED_PROBLEMS} more problems`];
}
