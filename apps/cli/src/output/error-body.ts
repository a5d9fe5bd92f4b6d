import { XMLParser } from 'fast-xml-parser';

/** What an error response says: its request id (when it names one) and one message per problem. */
export interface ErrorDetails {
  requestId?: string;
  messages: string[];
}

const xmlParser = new XMLParser({
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === 'Error',
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isRecord(value)) return textOf(value['Message']) ?? textOf(value['message']) ?? textOf(value['#text']);
  return undefined;
}

function messagesOf(values: unknown): string[] {
  const list = Array.isArray(values) ? values : values === undefined ? [] : [values];
  return list.map(textOf).filter((text): text is string => text !== undefined);
}

/** `<ErrorResponse><RequestId/><Errors><Error>text | <Message>text</Message></Error>…</Errors></ErrorResponse>` */
export function parseXmlErrorBody(xml: string): ErrorDetails | undefined {
  let parsed: unknown;
  try {
    parsed = xmlParser.parse(xml);
  } catch {
    return undefined;
  }
  const response = isRecord(parsed) ? parsed['ErrorResponse'] : undefined;
  if (!isRecord(response)) return undefined;
  const errors = response['Errors'];
  // Also accept Error elements placed directly under ErrorResponse.
  const messages = messagesOf(isRecord(errors) ? errors['Error'] : response['Error']);
  const requestId = textOf(response['RequestId']);
  return { messages, ...(requestId !== undefined && { requestId }) };
}

/** `{ "errors": ["text" | {"message": "text"}…], "requestId": 17 }` */
export function parseJsonErrorBody(json: string): ErrorDetails | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || (parsed['errors'] === undefined && parsed['requestId'] === undefined)) return undefined;
  const requestId = textOf(parsed['requestId']);
  return { messages: messagesOf(parsed['errors']), ...(requestId !== undefined && { requestId }) };
}

export function looksLikeXml(contentType: string | undefined, body: string): boolean {
  if (contentType !== undefined && /\bxml\b/i.test(contentType)) return true;
  if (contentType !== undefined && /\bjson\b/i.test(contentType)) return false;
  return body.trimStart().startsWith('<');
}

export function parseErrorBody(contentType: string | undefined, body: string): ErrorDetails | undefined {
  return looksLikeXml(contentType, body) ? parseXmlErrorBody(body) : parseJsonErrorBody(body);
}
