import { JsonLogger } from './json-logger';
import { REDACTED, redact, redactText } from './redact';

describe('redaction', () => {
  it.each([
    ['postgres://svc:s3cr3t@db:5432/app', `postgres://svc:${REDACTED}@db:5432/app`],
    ['Server=db;Database=x;User Id=sa;Password=p@ss;Encrypt=true', `Server=db;Database=x;User Id=sa;Password=${REDACTED};Encrypt=true`],
    ['pwd="a;b";x=1', `pwd=${REDACTED};x=1`],
    ['nothing secret here', 'nothing secret here'],
  ])('redacts credentials in %s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('replaces secret-named fields at any depth', () => {
    const redacted = redact({ warehouse: { password: 'x', secretKey: 'y', bucketName: 'b' }, source: { connectionString: 'z' } });
    expect(redacted).toEqual({ warehouse: { password: REDACTED, secretKey: REDACTED, bucketName: 'b' }, source: { connectionString: REDACTED } });
  });

  it('never writes a secret through the logger', () => {
    const lines: string[] = [];
    const logger = new JsonLogger('test', 'debug', (line) => lines.push(line));
    logger.error('connect failed for postgres://u:hunter2@h/db', { password: 'hunter2' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('hunter2');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'error', service: 'test' });
  });

  it('drops lines under the minimum level', () => {
    const lines: string[] = [];
    new JsonLogger('test', 'warn', (line) => lines.push(line)).log('hidden');
    expect(lines).toHaveLength(0);
  });
});
