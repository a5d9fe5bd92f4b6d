import { REDACTED } from '@svc/logging';
import { RetryableWorkError } from '@svc/messaging';
import { classifyFailure } from './failure-classifier';
import { WHERE_MAX_FRAMES, WHERE_MAX_FRAME_LENGTH, failureLogFields } from './failure-log';

const SECRETS = ['hunter2', 'S3cr3t!'];
const subject = { endpoint: 'Source', table: '[public].[orders]' } as const;

/** Throws from a named function, so that its frame is the stack's first. */
function openChecksumSession(message: string, code?: string): Error {
  const error = new Error(message);
  return code === undefined ? error : Object.assign(error, { code });
}

/** An error thrown `depth` calls deep: a stack of more frames than are kept. */
function deepError(depth: number): Error {
  return depth === 0 ? new Error('deep') : deepError(depth - 1);
}

const framesOf = (where: string | undefined): string[] => (where === undefined ? [] : where.split(' ← '));

describe('failureLogFields', () => {
  it('carries the reason, the redacted detail, the name, the code and the frames, never a password of a URL or a connection string', () => {
    const error = openChecksumSession(
      'could not connect with postgres://app:hunter2@db.internal:5432/sales nor with Server=sql;User Id=sa;Password=S3cr3t!;Encrypt=true',
      'ECONNREFUSED',
    );
    const verdict = classifyFailure(error, subject);

    const fields = failureLogFields(error, verdict);

    expect(fields).toMatchObject({ reason: verdict.reason, errorName: 'Error', code: 'ECONNREFUSED' });
    expect(fields.detail).toContain(`postgres://app:${REDACTED}@db.internal:5432/sales`);
    expect(fields.detail).toContain(`Password=${REDACTED};`);
    for (const secret of SECRETS) expect(JSON.stringify(fields)).not.toContain(secret);
    const frames = framesOf(fields.where);
    expect(frames[0]).toMatch(/^openChecksumSession \(.*failure-log\.spec\.ts:\d+:\d+\)$/);
    expect(frames.length).toBeLessThanOrEqual(WHERE_MAX_FRAMES);
  });

  it('keeps the message out of `where`, even one of several lines or changed after the stack was taken', () => {
    const error = new Error('first line\n    at postgres://app:hunter2@db/x\nServer=sql;Password=S3cr3t!');
    const changed = new Error('connect to postgres://app:hunter2@db/x failed');
    changed.message = 'a message set later';

    for (const fields of [failureLogFields(error, { reason: 'r' }), failureLogFields(changed, { reason: 'r' })]) {
      expect(fields.where).toBeDefined();
      expect(fields.where).not.toContain('postgres://');
      for (const secret of SECRETS) expect(JSON.stringify(fields)).not.toContain(secret);
    }
  });

  it('redacts a credential that sits in a frame', () => {
    const error = new Error('failed');
    error.stack = 'Error: failed\n    at connect (postgres://app:hunter2@db/x:1:1)\n    at run (/app/dist/main.js:10:5)';

    expect(failureLogFields(error, { reason: 'r' }).where).toBe(`connect (postgres://app:${REDACTED}@db/x:1:1) ← run (/app/dist/main.js:10:5)`);
  });

  it('bounds `where`: at most WHERE_MAX_FRAMES frames of at most WHERE_MAX_FRAME_LENGTH characters, the event loop\'s own left out', () => {
    const deep = deepError(30);
    const long = new Error('failed');
    long.stack = `Error: failed\n    at ${'x'.repeat(1000)} (/a.js:1:1)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n    at async settledBase (/b.js:2:2)`;

    expect(framesOf(failureLogFields(deep, { reason: 'r' }).where)).toHaveLength(WHERE_MAX_FRAMES);
    const frames = framesOf(failureLogFields(long, { reason: 'r' }).where);
    expect(frames).toHaveLength(2);
    expect(frames[0]).toHaveLength(WHERE_MAX_FRAME_LENGTH);
    expect(frames[1]).toBe('async settledBase (/b.js:2:2)');
  });

  it('describes the innermost error of a wrapped one (cause, mssql\'s originalError), naming its wrappers', () => {
    const driver = Object.assign(new Error('Login failed for user \'sa\''), { name: 'ConnectionError', code: 'ELOGIN' });
    const mssql = Object.assign(new Error('Login failed'), { name: 'ConnectionError', originalError: driver });
    const inner = openChecksumSession('timeout exceeded when trying to connect');
    const wrapped = new RetryableWorkError('Source: the operation failed (internal error)', { cause: inner, detail: 'timeout exceeded when trying to connect' });

    expect(failureLogFields(wrapped, { reason: wrapped.message, detail: 'timeout exceeded when trying to connect' })).toMatchObject({
      reason: 'Source: the operation failed (internal error)',
      detail: 'timeout exceeded when trying to connect',
      errorName: 'Error',
      wrappedIn: 'RetryableWorkError',
      where: expect.stringMatching(/^openChecksumSession /) as unknown,
    });
    expect(failureLogFields(mssql, { reason: 'r' })).toMatchObject({ errorName: 'ConnectionError', code: 'ELOGIN', wrappedIn: 'ConnectionError' });
  });

  it('ends a cycle of causes, and gives the reason alone for a thrown value that is no error', () => {
    const cyclic = new Error('a');
    Object.assign(cyclic, { cause: cyclic });

    expect(failureLogFields(cyclic, { reason: 'r' })).toMatchObject({ errorName: 'Error' });
    expect(failureLogFields('postgres://app:hunter2@db/x', { reason: 'r' })).toEqual({ reason: 'r' });
  });
});
