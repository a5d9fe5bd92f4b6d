import { IniSyntaxError, parseIni } from './ini-file';

describe('parseIni', () => {
  it('reads sections, keys and values the way aws-cli credential files are written', () => {
    const profiles = parseIni(
      [
        '\uFEFF# comment',
        '[default]',
        'svc_access_key_id = AKDEFAULT',
        'SVC_Secret_Access_Key=s3cr/et+with=equals',
        '',
        '; other comment',
        '[profile prod]',
        '  endpoint = https://svc.example.com  ',
        'region=eu-west-1',
        '[ staging ]',
        'empty =',
      ].join('\r\n'),
    );
    expect([...profiles.keys()]).toEqual(['default', 'prod', 'staging']);
    expect(profiles.get('default')?.get('svc_access_key_id')).toBe('AKDEFAULT');
    expect(profiles.get('default')?.get('svc_secret_access_key')).toBe('s3cr/et+with=equals');
    expect(profiles.get('prod')?.get('endpoint')).toBe('https://svc.example.com');
    expect(profiles.get('prod')?.get('region')).toBe('eu-west-1');
    expect(profiles.get('staging')?.get('empty')).toBe('');
  });

  it('merges a repeated section, later keys winning', () => {
    const profiles = parseIni('[a]\nx=1\ny=2\n[b]\nx=3\n[a]\ny=4\n');
    expect(Object.fromEntries(profiles.get('a') ?? [])).toEqual({ x: '1', y: '4' });
  });

  it('returns no profiles for an empty file', () => {
    expect(parseIni('').size).toBe(0);
  });

  it.each([
    ['key=hidden1\n', 'line 1: setting outside', 'hidden1'],
    ['[a]\nhidden2withoutequals\n', 'line 2: expected', 'hidden2'],
    ['[a]\n=hidden3\n', 'line 2: expected', 'hidden3'],
    ['[]\n', 'line 1: empty section name', '[]'],
  ])('rejects %j naming the line but not its text', (text, message, lineText) => {
    expect(() => parseIni(text)).toThrow(IniSyntaxError);
    expect(() => parseIni(text)).toThrow(message);
    expect(() => parseIni(text)).not.toThrow(lineText);
  });
});
