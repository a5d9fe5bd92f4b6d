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

  // Issue 19 item 8: each of these left part of the password in the text.
  it.each([
    ['a URL password with an @', 'postgres://u:p@ss@h/db', `postgres://u:${REDACTED}@h/db`],
    ['a URL password with a space', 'connect to postgres://u:a b@h/db failed', `connect to postgres://u:${REDACTED}@h/db failed`],
    ['an ADO password with a doubled quote and a ;', 'Server=db;Password="a""b;c";Database=x', `Server=db;Password=${REDACTED};Database=x`],
  ])('hides %s', (_case, input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it.each([
    ['conninfo with a backslash-escaped quote', "host=h user=u password='a b\\'c' dbname=d", `host=h user=u password=${REDACTED} dbname=d`],
    ['an mssql:// URL', 'mssql://sa:p w;x@sql:1433/app', `mssql://sa:${REDACTED}@sql:1433/app`],
    ['a JDBC Redshift URL', 'jdbc:redshift://c.example:5439/dev?user=u&password=a b;c&ssl=true', `jdbc:redshift://c.example:5439/dev?user=u&password=${REDACTED}&ssl=true`],
    ['a URL query sslpassword', 'postgres://h/db?sslpassword=x%26y&sslmode=verify-full', `postgres://h/db?sslpassword=${REDACTED}&sslmode=verify-full`],
    ['a NATS user and password', 'nats://svc:pw@nats:4222', `nats://svc:${REDACTED}@nats:4222`],
    ['a NATS token', 'servers tls://s3cr3t-token@nats:4222', `servers tls://${REDACTED}@nats:4222`],
    [
      'COPY credentials',
      "COPY t FROM 's3://b/m' ACCESS_KEY_ID 'AKIA1' SECRET_ACCESS_KEY 'it''s \\' secret' SESSION_TOKEN 'tok' MANIFEST",
      `COPY t FROM 's3://b/m' ACCESS_KEY_ID '${REDACTED}' SECRET_ACCESS_KEY '${REDACTED}' SESSION_TOKEN '${REDACTED}' MANIFEST`,
    ],
    ['COPY CREDENTIALS pairs', "CREDENTIALS 'aws_access_key_id=AKIA1;aws_secret_access_key=s3cr3t'", `CREDENTIALS '${REDACTED}`],
    ['an environment assignment', 'AWS_SECRET_ACCESS_KEY=wJalr/x+y; next', `AWS_SECRET_ACCESS_KEY=${REDACTED}; next`],
    ['a JavaScript object as printed', "{ user: 'u', password: 'a \\' b' }", `{ user: 'u', password: '${REDACTED}' }`],
    ['a JSON secret member', '{"aws_secret_access_key":"x\\"y","region":"r"}', `{"aws_secret_access_key":"${REDACTED}","region":"r"}`],
  ])('hides %s', (_case, input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('uses the mask it is given', () => {
    expect(redactText('postgres://u:pw@h/db', '***')).toBe('postgres://u:***@h/db');
  });

  it('replaces secret-named fields at any depth', () => {
    const redacted = redact({ warehouse: { password: 'x', secretKey: 'y', bucketName: 'b' }, source: { connectionString: 'z', connection_string: 'z' } });
    expect(redacted).toEqual({ warehouse: { password: REDACTED, secretKey: REDACTED, bucketName: 'b' }, source: { connectionString: REDACTED, connection_string: REDACTED } });
  });
});
