import { ErrorCode } from '@svc/contracts';
import { httpStatusOf } from './http-status';

describe('httpStatusOf', () => {
  it.each([
    [ErrorCode.ValidationFailed, 400],
    [ErrorCode.Conflict, 400],
    [ErrorCode.Forbidden, 403],
    [ErrorCode.NotFound, 404],
    [ErrorCode.Unavailable, 503],
    [ErrorCode.Internal, 500],
  ])('maps %s to %i', (code, status) => {
    expect(httpStatusOf(code)).toBe(status);
  });

  it('covers every error code', () => {
    for (const code of Object.values(ErrorCode)) expect(() => httpStatusOf(code)).not.toThrow();
  });
});
