import { XMLValidator } from 'fast-xml-parser';
import type { ApiResponse } from '@svc/system-testing';
import type { Format, FuzzCase } from './fuzz-cases';

const CONTENT_TYPES: Record<Format, string> = { xml: 'application/xml; charset=utf-8', json: 'application/json; charset=utf-8' };

/** Every run of five characters of the marker, lower-cased: none may appear in an answer or a log line. */
export function markerPieces(marker: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start + 5 <= marker.length; start += 1) pieces.push(marker.slice(start, start + 5).toLowerCase());
  return pieces;
}

export function leakedPiece(text: string, pieces: string[]): string | null {
  const lower = text.toLowerCase();
  return pieces.find((piece) => lower.includes(piece)) ?? null;
}

/** What is wrong with the answer to one fuzz case, or an empty list. */
export function answerProblems(fuzzCase: FuzzCase, response: ApiResponse, pieces: string[]): string[] {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`status ${response.status}`);
  if (fuzzCase.mustRefuse && response.status === 200) problems.push('answered 200 to a request that must be refused');

  const contentType = String(response.headers['content-type'] ?? '');
  const answered = Object.entries(CONTENT_TYPES).find(([, type]) => type === contentType)?.[0] as Format | undefined;
  if (fuzzCase.format !== null && answered !== fuzzCase.format) {
    problems.push(`Content-Type ${JSON.stringify(contentType)} for a ${fuzzCase.format} request`);
  } else if (answered === undefined) {
    problems.push(`Content-Type ${JSON.stringify(contentType)} is neither of the API's formats`);
  }

  if (fuzzCase.method !== 'HEAD' && answered !== undefined) {
    const bodyProblem = response.body === '' ? (response.status === 200 ? null : 'an empty body with an error status') : formatProblem(answered, response);
    if (bodyProblem) problems.push(bodyProblem);
  }
  const leaked = leakedPiece(response.body + JSON.stringify(response.headers), pieces);
  if (leaked !== null) problems.push(`the answer quotes '${leaked}' of a secret`);
  return problems;
}

function formatProblem(format: Format, response: ApiResponse): string | null {
  if (format === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      return 'the body is not JSON';
    }
    if (response.status === 200) return null;
    const error = parsed as { errors?: unknown; requestId?: unknown };
    const shaped = Array.isArray(error.errors) && error.errors.length > 0 && error.errors.every((item) => typeof item === 'string') && typeof error.requestId === 'number';
    return shaped ? null : 'the JSON error body is not {"errors": [...], "requestId": n}';
  }
  if (XMLValidator.validate(response.body) !== true) return 'the body is not well-formed XML';
  if (response.status === 200) return null;
  return /^<\?xml [^>]*\?>\s*<ErrorResponse><RequestId>\d+<\/RequestId><Errors>(?:<Error>[^<]+<\/Error>)+<\/Errors><\/ErrorResponse>$/.test(response.body)
    ? null
    : 'the XML error body is not <ErrorResponse> with <RequestId> and <Errors>';
}
