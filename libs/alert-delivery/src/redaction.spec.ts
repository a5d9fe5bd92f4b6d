import { redactSecrets, urlForMessages } from './redaction';

describe('urlForMessages', () => {
  it.each([
    ['https://user:secret@hooks.example.com:8443/a/b?sig=xyz#frag', 'https://hooks.example.com:8443/…'],
    ['https://hooks.slack.com/services/T000/B000/XXXXSECRET', 'https://hooks.slack.com/…'],
    ['http://hooks.example.com', 'http://hooks.example.com'],
    ['not a url', '(an invalid URL)'],
  ])('%s → %s', (url, shown) => {
    expect(urlForMessages(url)).toBe(shown);
  });
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each secret', () => {
    expect(redactSecrets('pw=hunter2 again hunter2, key AKIA', ['hunter2', 'AKIA'])).toBe('pw=*** again ***, key ***');
  });

  it('leaves secrets too short to be told from ordinary text', () => {
    expect(redactSecrets('a b', ['a', ''])).toBe('a b');
  });
});
