import { ErrorCode } from '@svc/contracts';
import { replyingOnFailure, unexpectedFailure } from './unexpected-failure';

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('unexpectedFailure', () => {
  it.each(['22P05', '22021', '22001', '22003', '22P02', '54000'])('answers ValidationFailed for a value PostgreSQL cannot store (%s)', (code) => {
    const failure = unexpectedFailure(pgError(code, 'unsupported Unicode escape sequence: "postgres://u:Pa55-LEAK@h"'));
    expect(failure.code).toBe(ErrorCode.ValidationFailed);
    expect(failure.message).toMatch(/^the request was not applied: /);
    expect(failure.message).not.toContain('LEAK');
  });

  it.each([
    ['57P01', ErrorCode.Unavailable],
    ['08006', ErrorCode.Unavailable],
    ['ECONNREFUSED', ErrorCode.Unavailable],
    ['42P01', ErrorCode.Internal],
    ['23505', ErrorCode.Internal],
  ])('keeps %s as %s', (code, expected) => {
    expect(unexpectedFailure(pgError(code, 'x')).code).toBe(expected);
  });

  it('replies with the mapped code and logs the error', async () => {
    const logged: unknown[] = [];
    const reply = await replyingOnFailure({ error: (_message, fields) => logged.push(fields) }, { operation: 'AlterWarehouseReplication' }, () =>
      Promise.reject(pgError('22P05', 'unsupported Unicode escape sequence')),
    );
    expect(reply).toEqual({ ok: false, error: { code: ErrorCode.ValidationFailed, messages: [expect.stringMatching(/cannot be stored/)] } });
    expect(logged).toHaveLength(1);
  });
});
