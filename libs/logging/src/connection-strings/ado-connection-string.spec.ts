import { adoBoolean, parseAdoConnectionString, readAdoPairs } from './ado-connection-string';

describe('parseAdoConnectionString', () => {
  it('reads pairs with case-insensitive keys and trimmed values', () => {
    const pairs = parseAdoConnectionString(' Server = tcp:host,1433 ; DATABASE=sales;User   ID=admin;;');
    expect(Object.fromEntries(pairs ?? [])).toEqual({ server: 'tcp:host,1433', database: 'sales', 'user id': 'admin' });
  });

  it('keeps quoted values whole, including separators, equals signs and doubled quotes', () => {
    const pairs = parseAdoConnectionString(`Password="a;b=""c""";Pwd='it''s; fine' ; Application Name = " spaced "`);
    expect(pairs?.get('password')).toBe('a;b="c"');
    expect(pairs?.get('pwd')).toBe("it's; fine");
    expect(pairs?.get('application name')).toBe(' spaced ');
  });

  it('treats == inside a key as a literal equals sign', () => {
    expect(parseAdoConnectionString('odd==key=value')?.get('odd=key')).toBe('value');
  });

  it('lets the last occurrence of a key win and allows empty values', () => {
    const pairs = parseAdoConnectionString('Database=a;Database=b;Password=');
    expect(pairs?.get('database')).toBe('b');
    expect(pairs?.get('password')).toBe('');
  });

  it.each([['Server'], ['Server=host;Database'], ['=value'], ['Password="unterminated'], ['Password="closed"trailing;x=y']])(
    'rejects malformed text %s',
    (text) => {
      expect(parseAdoConnectionString(text)).toBeNull();
    },
  );
});

describe('adoBoolean', () => {
  it.each([
    ['true', true],
    [' YES ', true],
    ['False', false],
    ['no', false],
    ['maybe', undefined],
    [undefined, undefined],
  ])('%s → %s', (text, value) => {
    expect(adoBoolean(text)).toBe(value);
  });
});

describe('readAdoPairs', () => {
  it('gives each value with where it stands, so a redactor hides exactly what SqlClient reads', () => {
    const text = `Server=h; Password = "a;""b" ;User ID=u`;
    const pairs = readAdoPairs(text) ?? [];
    expect(pairs.map((pair) => [pair.key, pair.value, text.slice(pair.valueStart, pair.valueEnd)])).toEqual([
      ['Server', 'h', 'h'],
      ['Password ', 'a;"b', ' "a;""b" '],
      ['User ID', 'u', 'u'],
    ]);
  });

  it('reads an empty key (the connection parser refuses it, the redactor passes over it)', () => {
    expect(readAdoPairs('=x;Password=p')?.map((pair) => pair.key)).toEqual(['', 'Password']);
    expect(parseAdoConnectionString('=x;Password=p')).toBeNull();
  });
});
