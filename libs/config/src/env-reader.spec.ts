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
});
