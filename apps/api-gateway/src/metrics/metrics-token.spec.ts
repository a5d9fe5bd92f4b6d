import { bearerTokenMatches } from './metrics-token';

const TOKEN = 'scrape-token-0123456789';

describe('bearerTokenMatches', () => {
  it('accepts the token as a bearer token', () => {
    expect(bearerTokenMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerTokenMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['another token', 'Bearer scrape-token-0123456780'],
    ['a prefix of the token', 'Bearer scrape-token'],
    ['the token without the scheme', TOKEN],
    ['another scheme', `Basic ${TOKEN}`],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s', (_case, header) => {
    expect(bearerTokenMatches(header, TOKEN)).toBe(false);
  });
});
