import { redactText } from '@svc/logging';
import type { FailureVerdict } from './failure-classifier';

/**
 * What a service's log line says of a failed unit of work, beyond the classified reason it reports: what the
 * driver or server said and where the failure happened, redacted. The classified reason alone ("Source: the
 * operation failed (internal error)") leaves an operator reading the service's log nothing to go on.
 */
export interface FailureLogFields {
  /** The classified reason (or the service's own words), as the failure is reported. */
  reason: string;
  /** What the driver or server said, redacted of credentials and bounded (the verdict's detail). */
  detail?: string;
  /** The name of the error that failed: the innermost of a wrapped one (`cause`, mssql's `originalError`). */
  errorName?: string;
  /** The driver's or system's code of that error (SQLSTATE, tedious/mssql code, errno name), or of the nearest wrapper that has one. */
  code?: string;
  /** The errors it was wrapped in, outermost first (`RetryableWorkError > WarehouseSideError`). */
  wrappedIn?: string;
  /** Its stack frames, innermost first, without the message, redacted and bounded: `fn (file:line:col) ← …`. */
  where?: string;
}

/** Stack frames kept in `where`: V8 records 10 by default, and the last ones are the event loop's. */
export const WHERE_MAX_FRAMES = 8;
/** A frame longer than this (a long path) is cut. */
export const WHERE_MAX_FRAME_LENGTH = 240;
/** Wrapped errors followed at most, so that a cycle of causes ends. */
const MAX_WRAP_DEPTH = 5;

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  stack?: unknown;
  cause?: unknown;
  originalError?: unknown;
}

/**
 * The fields a service logs with a failure it reports only by its classified reason (`verdict`, from
 * classifyFailure, or a work error's message and detail), so its own log carries the cause: the redacted detail,
 * the error's name and code and its stack frames. Nothing of the error's message goes into `where`, and every
 * text passes redactText: a stack or a message may hold a connection string.
 */
export function failureLogFields(error: unknown, verdict: Pick<FailureVerdict, 'reason' | 'detail'>): FailureLogFields {
  const chain = errorChain(error);
  const inner = chain.at(-1);
  const innerName = inner === undefined ? undefined : nameOf(inner);
  const code = [...chain].reverse().map(codeOf).find((found) => found !== undefined);
  const wrappers = chain.slice(0, -1).map(nameOf).filter((name): name is string => name !== undefined);
  const where = [...chain].reverse().map(framesOf).find((frames) => frames !== undefined);
  return {
    reason: verdict.reason,
    ...(verdict.detail !== undefined && { detail: verdict.detail }),
    ...(innerName !== undefined && { errorName: innerName }),
    ...(code !== undefined && { code }),
    ...(wrappers.length > 0 && { wrappedIn: wrappers.join(' > ') }),
    ...(where !== undefined && { where }),
  };
}

/** The error and those it wraps, outermost first. */
function errorChain(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  let next: unknown = error;
  while (isErrorLike(next) && !chain.includes(next) && chain.length <= MAX_WRAP_DEPTH) {
    chain.push(next);
    next = next.cause ?? next.originalError;
  }
  return chain;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null;
}

function nameOf(error: ErrorLike): string | undefined {
  return typeof error.name === 'string' && error.name !== '' ? redactText(error.name).slice(0, WHERE_MAX_FRAME_LENGTH) : undefined;
}

function codeOf(error: ErrorLike): string | undefined {
  const code = typeof error.code === 'string' ? error.code : typeof error.code === 'number' ? String(error.code) : '';
  return code === '' ? undefined : redactText(code).slice(0, WHERE_MAX_FRAME_LENGTH);
}

/**
 * The stack's frames, without its header (`Name: message`, which may span lines): the header is cut off up to the
 * end of the message, what is left is redacted (the whole stack, where the message cannot be found in it), and only
 * its `at …` lines are kept, the event loop's own (node:internal) left out.
 */
function framesOf(error: ErrorLike): string | undefined {
  if (typeof error.stack !== 'string') return undefined;
  const message = typeof error.message === 'string' ? error.message : '';
  const end = message === '' ? -1 : error.stack.indexOf(message);
  const frames = redactText(end < 0 ? error.stack : error.stack.slice(end + message.length))
    .split('\n')
    .map((line) => /^\s+at (.+)$/.exec(line)?.[1]?.trim())
    .filter((frame): frame is string => frame !== undefined && !frame.includes('node:internal'))
    .slice(0, WHERE_MAX_FRAMES)
    .map((frame) => (frame.length > WHERE_MAX_FRAME_LENGTH ? `${frame.slice(0, WHERE_MAX_FRAME_LENGTH - 1)}…` : frame));
  return frames.length > 0 ? frames.join(' ← ') : undefined;
}
