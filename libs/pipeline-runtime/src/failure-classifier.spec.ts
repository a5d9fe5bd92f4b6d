import { classifyFailure } from './failure-classifier';

const withCode = (code: string | number, message = 'failed') => Object.assign(new Error(message), { code });
const s3 = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

describe('classifyFailure', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED'), true],
    ['connection reset', withCode('ECONNRESET'), true],
    ['PostgreSQL connection failure 08006', withCode('08006'), true],
    ['serialization failure 40001', withCode('40001'), true],
    ['deadlock 40P01', withCode('40P01'), true],
    ['too many connections 53300', withCode('53300'), true],
    ['admin shutdown 57P01', withCode('57P01'), true],
    ['statement timeout 57014', withCode('57014'), true],
    ['authentication failed 28P01', withCode('28P01'), false],
    ['database missing 3D000', withCode('3D000'), false],
    ['table dropped 42P01', withCode('42P01'), false],
    ['permission denied 42501', withCode('42501'), false],
    ['value out of range 22003', withCode('22003'), false],
    ['SQL Server login failed', withCode('ELOGIN'), false],
    ['SQL Server socket', withCode('ESOCKET'), true],
    ['SQL Server deadlock 1205', Object.assign(new Error('deadlock'), { number: 1205 }), true],
    ['SQL Server invalid object 208', Object.assign(new Error('invalid object'), { number: 208 }), false],
    ['S3 throttling', s3('SlowDown', 503), true],
    ['S3 access denied', s3('AccessDenied', 403), false],
    ['S3 missing bucket', s3('NoSuchBucket', 404), false],
    ['S3 5xx', s3('Whatever', 502), true],
    ['NATS timeout', withCode('TIMEOUT'), true],
    ['unknown error', new Error('something odd'), true],
  ])('%s → retryable %s', (_name, error, retryable) => {
    expect(classifyFailure(error).retryable).toBe(retryable);
  });

  it('never carries a password into the reason', () => {
    const verdict = classifyFailure(withCode('28P01', 'login failed for postgres://app:hunter2@db/x'));
    expect(verdict.reason).not.toContain('hunter2');
  });
});
