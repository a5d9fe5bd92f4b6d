import { JsonLogger, type LogLevel } from './json-logger';
import { REDACTED } from './redact';

const SECRET = 'hunter2-Zq9';

function capture(minLevel: LogLevel = 'debug'): { logger: JsonLogger; lines: string[] } {
  const lines: string[] = [];
  return { logger: new JsonLogger('extractor', minLevel, (line) => lines.push(line)), lines };
}

class DriverError extends Error {
  constructor(
    message: string,
    readonly connectionString: string,
  ) {
    super(message);
  }
}

/** Every place a caller could put a secret by mistake; each must be written without it. */
const LEAKS: [string, (logger: JsonLogger) => void][] = [
  ['a top-level password field', (logger) => logger.info('connecting', { password: SECRET })],
  ['a secret-named field in any spelling', (logger) => logger.info('connecting', { DB_PASSWORD: SECRET, 'private-key': SECRET, apiKey: SECRET, pwd: SECRET })],
  ['a nested object', (logger) => logger.warn('config', { replication: { source: { connection: { password: SECRET } } } })],
  ['a nested connection string field', (logger) => logger.warn('config', { source: { connection_string: `Server=db;Database=x;Uid=sa;Pwd=${SECRET}` } })],
  ['an array of objects', (logger) => logger.error('targets', { targets: [{ name: 'a' }, { secretKey: SECRET }] })],
  ['an array of URLs', (logger) => logger.error('targets', { urls: ['https://a.example', `postgres://app:${SECRET}@db:5432/x`] })],
  ['a URL with credentials in a plain field', (logger) => logger.info('fetch', { url: `https://svc:${SECRET}@bucket.example/key` })],
  ['a URL with only a password', (logger) => logger.info('fetch', { url: `redis://:${SECRET}@cache:6379` })],
  ['the message text', (logger) => logger.error(`connect failed for postgres://u:${SECRET}@h/db`)],
  ['an ADO password in the message text', (logger) => logger.log(`login failed: Server=db;User Id=sa;Password="${SECRET};x";Encrypt=true`)],
  ['JSON in the message text', (logger) => logger.warn(`bad reply {"user":"sa","password":"${SECRET}"}`)],
  ['an Error as the message', (logger) => logger.error(new Error(`login failed: postgres://u:${SECRET}@h/db`))],
  ['an Error in a field', (logger) => logger.error('request failed', { error: new Error(`Password=${SECRET};`) })],
  ['an Error under pino\'s own error key', (logger) => logger.error('request failed', { err: new Error(`postgres://u:${SECRET}@h/db`) })],
  ['an Error whose own property holds the secret', (logger) => logger.error('driver', { error: new DriverError('login failed', `Password=${SECRET}`) })],
  ['an Error in an array', (logger) => logger.error('many', { errors: [new Error(`postgres://u:${SECRET}@h/db`)] })],
  ['an object as the message', (logger) => logger.log({ warehouse: { password: SECRET } })],
  ['a Nest context string', (logger) => logger.log('boom', `postgres://u:${SECRET}@h/db`)],
  ['a Nest stack and context', (logger) => logger.error('boom', `Error: Password=${SECRET}`, `postgres://u:${SECRET}@h/db`)],
  ['an environment variable name', (logger) => logger.debug('environment', { env: { AWS_SECRET_ACCESS_KEY: SECRET, SVC_MASTER_KEY: SECRET } })],
  ['fields past the depth limit', (logger) => logger.info('deep', { a: { b: { c: { d: { e: { f: { g: { h: { i: { password: SECRET } } } } } } } } } })],
  ['an authorization header', (logger) => logger.info('request', { headers: { Authorization: `SVC4-HMAC-SHA256 Credential=AK/…, Signature=${SECRET}` } })],
];

describe('JsonLogger', () => {
  it.each(LEAKS)('never writes a secret placed in %s', (_place, logIt) => {
    const { logger, lines } = capture();
    logIt(logger);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(SECRET);
    expect(lines[0]).toMatch(/"level":"(debug|info|warn|error)"/);
  });

  it('says where a secret was removed', () => {
    const { logger, lines } = capture();
    logger.info(`connect to postgres://app:${SECRET}@db/x`, { password: SECRET, nested: [{ token: SECRET }] });
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      msg: `connect to postgres://app:${REDACTED}@db/x`,
      password: REDACTED,
      nested: [{ token: REDACTED }],
    });
  });

  it('writes one JSON object per line: level as a word, ISO time, service, msg, then the fields', () => {
    const { logger, lines } = capture();
    logger.info('batch staged', { batchId: 'b-1', rows: 3, error: new Error('slow bucket') });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(lines[0]).toMatch(/^\{"level":"info","time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","service":"extractor","msg":"batch staged",/);
    const { time, ...rest } = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(Date.parse(String(time))).toBeGreaterThan(Date.now() - 60000);
    expect(rest).toEqual({
      level: 'info',
      service: 'extractor',
      msg: 'batch staged',
      batchId: 'b-1',
      rows: 3,
      error: { name: 'Error', message: 'slow bucket' },
    });
  });

  it('maps Nest logger methods to levels and keeps the context name', () => {
    const { logger, lines } = capture();
    logger.verbose('v');
    logger.debug('d');
    logger.log('l', 'RoutesResolver');
    logger.warn('w');
    logger.error('e', 'stack', 'ExceptionHandler');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'debug', msg: 'v' }),
      expect.objectContaining({ level: 'debug', msg: 'd' }),
      expect.objectContaining({ level: 'info', msg: 'l', context: 'RoutesResolver' }),
      expect.objectContaining({ level: 'warn', msg: 'w' }),
      expect.objectContaining({ level: 'error', msg: 'e', context: 'ExceptionHandler' }),
    ]);
  });

  it('drops lines under the minimum level', () => {
    const { logger, lines } = capture('warn');
    logger.debug('hidden');
    logger.log('hidden');
    logger.info('hidden');
    logger.warn('shown');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['shown']);
  });

  it('writes values JSON alone cannot', () => {
    const { logger, lines } = capture();
    logger.info('counted', { rows: 42n });
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ rows: 42 });
  });
});
