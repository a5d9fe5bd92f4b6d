import { allowedHostsWarning, hostIsAllowed, parseAllowedHosts, parseHostAndPort } from './allowed-hosts';

describe('parseHostAndPort', () => {
  it.each([
    ['api.example.com', { host: 'api.example.com', port: null }],
    ['API.Example.COM.:8443', { host: 'api.example.com', port: 8443 }],
    ['10.0.0.7:8080', { host: '10.0.0.7', port: 8080 }],
    ['[::1]:8080', { host: '[::1]', port: 8080 }],
    ['[2001:DB8::1]', { host: '[2001:db8::1]', port: null }],
  ])('reads %s', (text, expected) => {
    expect(parseHostAndPort(text)).toEqual(expected);
  });

  it.each(['', 'a b', 'host:0', 'host:65536', 'host:80:81', '::1', '[not-an-address]', 'host:', 'exa_mple.com', '-bad.com', 'host/path'])(
    'refuses %j',
    (text) => {
      expect(parseHostAndPort(text)).toBeNull();
    },
  );
});

describe('parseAllowedHosts', () => {
  it('reads comma-separated entries, ignoring blanks, and names the ones it cannot read', () => {
    expect(parseAllowedHosts(' api.example.com , 10.0.0.7:8443,,bad host ')).toEqual({
      hosts: [
        { host: 'api.example.com', port: null },
        { host: '10.0.0.7', port: 8443 },
      ],
      unreadable: ['bad host'],
    });
  });
});

describe('hostIsAllowed', () => {
  const allowed = parseAllowedHosts('api.example.com,10.0.0.7:8443,[::1]:8080').hosts;

  it.each(['api.example.com', 'API.EXAMPLE.COM', 'api.example.com:8443', 'api.example.com.:443', '10.0.0.7:8443', '[::1]:8080'])('allows %s', (host) => {
    expect(hostIsAllowed(host, allowed)).toBe(true);
  });

  it.each([
    ['another name', 'evil.example.com'],
    ['a suffix trick', 'api.example.com.evil.net'],
    ['the right address on another port', '10.0.0.7:8080'],
    ['the right address without the port its entry names', '10.0.0.7'],
    ['another address', '127.0.0.1:8443'],
    ['a malformed header', 'api.example.com:x'],
    ['no header', undefined],
  ])('refuses %s', (_case, host) => {
    expect(hostIsAllowed(host, allowed)).toBe(false);
  });
});

describe('allowedHostsWarning', () => {
  it('warns a gateway listening beyond loopback without SVC_ALLOWED_HOSTS', () => {
    expect(allowedHostsWarning('0.0.0.0', undefined)).toMatch(/^SVC_ALLOWED_HOSTS is not set and the API listens on 0\.0\.0\.0/);
  });

  it('says nothing on loopback or once names are set', () => {
    expect(allowedHostsWarning('127.0.0.1', undefined)).toBeNull();
    expect(allowedHostsWarning('0.0.0.0', [{ host: 'api.example.com', port: null }])).toBeNull();
  });
});
