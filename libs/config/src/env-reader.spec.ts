import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, EnvReader } from './env-reader';

describe('EnvReader', () => {
  it('reads typed values with fallbacks', () => {
    const env = new EnvReader({ PORT: '9090', FLAG: 'TRUE', NAME: ' x ' });
    expect(env.int('PORT', 8080)).toBe(9090);
    expect(env.int('MISSING', 8080)).toBe(8080);
    expect(env.bool('FLAG', false)).toBe(true);
    expect(env.string('NAME')).toBe('x');
    expect(() => env.done()).not.toThrow();
  });

  it('reports every problem at once without echoing URLs', () => {
    const env = new EnvReader({ PORT: 'abc', FLAG: 'maybe', DB: 'mysql://u:secret@h/db' });
    env.int('PORT', 8080);
    env.bool('FLAG', false);
    env.string('REQUIRED');
    env.url('DB', 'postgres://h/db', ['postgres', 'postgresql']);
    try {
      env.done();
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toEqual([
        "PORT: must be an integer, got 'abc'",
        "FLAG: must be true or false, got 'maybe'",
        'REQUIRED: is required',
        'DB: must be a postgres or postgresql URL',
      ]);
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('enforces integer bounds', () => {
    const env = new EnvReader({ N: '0' });
    env.int('N', 1, { min: 1 });
    expect(() => env.done()).toThrow('N: must be at least 1');
  });

  it('reads a pair of settings as both or neither, naming the missing one without echoing the other', () => {
    expect(new EnvReader({ A: ' a ', B: 'b' }).optionalPair('A', 'B')).toEqual(['a', 'b']);
    const neither = new EnvReader({ A: ' ' });
    expect(neither.optionalPair('A', 'B')).toBeUndefined();
    expect(() => neither.done()).not.toThrow();
    for (const [env, problem] of [
      [{ A: '/etc/secret-a' }, 'B: is required when A is set'],
      [{ B: '/etc/secret-b' }, 'A: is required when B is set'],
    ] as const) {
      const reader = new EnvReader(env);
      expect(reader.optionalPair('A', 'B')).toBeUndefined();
      expect(() => reader.done()).toThrow(new ConfigError([problem]));
    }
  });

  describe('a setting read from a file (<NAME>_FILE: Kubernetes and compose secrets, issue 40)', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'svc-env-file-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the value from the file, without its final newline', () => {
      const secret = join(dir, 'master-key');
      writeFileSync(secret, 'a'.repeat(64) + '\n');
      const env = new EnvReader({ SVC_MASTER_KEY_FILE: secret, WORKER_CONCURRENCY_FILE: join(dir, 'concurrency') });
      writeFileSync(join(dir, 'concurrency'), '6\n');
      expect(env.string('SVC_MASTER_KEY')).toBe('a'.repeat(64));
      expect(env.int('WORKER_CONCURRENCY', 4)).toBe(6);
      expect(() => env.done()).not.toThrow();
    });

    it('refuses a setting given both ways, and a file it cannot read, naming the path but never a value', () => {
      const secret = join(dir, 'password');
      writeFileSync(secret, 'file-secret-value');
      const env = new EnvReader({ DATABASE_URL: 'postgres://u:env-secret-value@h/db', DATABASE_URL_FILE: secret, METRICS_TOKEN_FILE: join(dir, 'missing') });
      env.optionalString('DATABASE_URL');
      expect(env.optionalString('METRICS_TOKEN')).toBeUndefined();
      let thrown: unknown;
      try {
        env.done();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).problems).toEqual([
        'DATABASE_URL and DATABASE_URL_FILE: set one of them, not both',
        `METRICS_TOKEN_FILE: cannot read ${join(dir, 'missing')} (ENOENT)`,
      ]);
      expect((thrown as ConfigError).message).not.toMatch(/secret-value/);
    });
  });
});
