import { REDACTED, redact, redactText } from './redact';

describe('redaction', () => {
  it.each([
    ['postgres://svc:s3cr3t@db:5432/app', `postgres://svc:${REDACTED}@db:5432/app`],
    ['Server=db;Database=x;User Id=sa;Password=p@ss;Encrypt=true', `Server=db;Database=x;User Id=sa;Password=${REDACTED};Encrypt=true`],
    ['pwd="a;b";x=1', `pwd=${REDACTED};x=1`],
    ['redis://:s3cr3t@cache:6379', `redis://:${REDACTED}@cache:6379`],
    ['reply {"user":"sa","Password":"p\\"w","note":"x"}', `reply {"user":"sa","Password":"${REDACTED}","note":"x"}`],
    ['nothing secret here', 'nothing secret here'],
  ])('redacts credentials in %s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('replaces secret-named fields at any depth', () => {
    const redacted = redact({ warehouse: { password: 'x', secretKey: 'y', bucketName: 'b' }, source: { connectionString: 'z', connection_string: 'z' } });
    expect(redacted).toEqual({ warehouse: { password: REDACTED, secretKey: REDACTED, bucketName: 'b' }, source: { connectionString: REDACTED, connection_string: REDACTED } });
  });
});
