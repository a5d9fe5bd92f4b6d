import { CONSOLE_SECURITY_HEADERS } from './console-headers';
import type { ConsoleFiles } from './console-files';

export const CONSOLE_FILES = Symbol('CONSOLE_FILES');
export const CONSOLE_PREFIX = '/console/';

export interface ConsoleReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

/**
 * The answer to GET `requestUrl` (path and query as sent) under /console: the file, a 304 when the browser's
 * copy is current, a redirect from /console to /console/ (relative links need the slash), or a plain 404.
 */
export function consoleResponse(files: ConsoleFiles, requestUrl: string, ifNoneMatch: string | undefined): ConsoleReply {
  const path = requestUrl.split('?')[0] ?? '';
  if (path === '/console') return { status: 308, headers: { ...CONSOLE_SECURITY_HEADERS, Location: CONSOLE_PREFIX }, body: '' };
  const file = path.startsWith(CONSOLE_PREFIX) ? files.find(path.slice(CONSOLE_PREFIX.length)) : undefined;
  if (file === undefined) {
    const message = files.missingReason ?? 'no such file in the console';
    return { status: 404, headers: { ...CONSOLE_SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' }, body: `${message}\n` };
  }
  const headers = { ...CONSOLE_SECURITY_HEADERS, 'Content-Type': file.contentType, ETag: file.etag };
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim() === file.etag)) return { status: 304, headers, body: '' };
  return { status: 200, headers, body: file.body };
}
