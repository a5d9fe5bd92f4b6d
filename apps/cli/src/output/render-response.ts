import type { HttpResponse } from '../http/send-operation';
import { ExitCode } from '../exit-codes';
import { looksLikeXml, parseErrorBody } from './error-body';
import { oneLineForTerminal } from '../watch/terminal-text';
import { xmlAnswerAsJson } from './xml-answer';

export interface RenderedOutput {
  exitCode: ExitCode;
  stdout: string | Buffer;
  stderr: string;
}

const UNPARSED_BODY_LIMIT = 500;
const REQUEST_ID_HEADER = 'x-svc-request-id';

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function renderSuccess(response: HttpResponse, raw: boolean): RenderedOutput {
  if (raw) return { exitCode: ExitCode.Ok, stdout: response.body, stderr: '' };
  const text = response.body.toString('utf8');
  if (text.trim() === '') return { exitCode: ExitCode.Ok, stdout: `OK (HTTP ${response.status})\n`, stderr: '' };
  if (looksLikeXml(singleHeader(response.headers['content-type']), text)) {
    // One format whatever the call was sent in (an XML body from --file answers in XML): the JSON the API would give.
    const answer = xmlAnswerAsJson(text);
    return { exitCode: ExitCode.Ok, stdout: answer === null ? withNewline(text) : `${JSON.stringify(answer, null, 2)}\n`, stderr: '' };
  }
  try {
    return { exitCode: ExitCode.Ok, stdout: `${JSON.stringify(JSON.parse(text), null, 2)}\n`, stderr: '' };
  } catch {
    return { exitCode: ExitCode.Ok, stdout: withNewline(text), stderr: '' };
  }
}

/** What an error answer says: `HTTP 400 (request 17)` and one message per problem it reports. */
export function errorReport(response: HttpResponse): { heading: string; messages: string[] } {
  const text = response.body.toString('utf8');
  const details = parseErrorBody(singleHeader(response.headers['content-type']), text);
  const requestId = details?.requestId ?? singleHeader(response.headers[REQUEST_ID_HEADER]);
  let messages = details?.messages ?? [];
  if (messages.length === 0 && details === undefined && text.trim() !== '') {
    // Not an API error body (a proxy's page, say): show its start so the cause is not hidden.
    const trimmed = text.trim().replace(/\s+/g, ' ');
    messages = [trimmed.length > UNPARSED_BODY_LIMIT ? `${trimmed.slice(0, UNPARSED_BODY_LIMIT)}…` : trimmed];
  }
  return { heading: `HTTP ${response.status}${requestId !== undefined ? ` (request ${requestId})` : ''}`, messages };
}

/**
 * `Error: HTTP 400 (request 17)` then one `  - message` line per problem the body reports. Messages quote
 * names from user databases: control characters are shown as escapes, never sent to the terminal.
 */
function renderError(response: HttpResponse): RenderedOutput {
  const { heading, messages } = errorReport(response);
  const lines = [`Error: ${oneLineForTerminal(heading)}`, ...messages.map((message) => `  - ${oneLineForTerminal(message)}`)];
  return { exitCode: ExitCode.Failed, stdout: '', stderr: `${lines.join('\n')}\n` };
}

/** A 2xx answer is printed to stdout; anything else becomes the error report on stderr. */
export function renderResponse(response: HttpResponse, options: { raw: boolean }): RenderedOutput {
  return response.status >= 200 && response.status < 300 ? renderSuccess(response, options.raw) : renderError(response);
}
