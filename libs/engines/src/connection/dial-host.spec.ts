import { ConnectionStringError } from './connection-string-error';
import { QUERY_HOST_RULE, SOCKET_HOST_RULE, UNREADABLE_HOST_RULE, UnsafeHostError, dialHostOf, driverHostOf, refuseQueryHosts } from './dial-host';

describe('dialHostOf: one reading of a host for the policy and every driver', () => {
  it.each([
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['::FFFF:7F00:1', '::ffff:7f00:1'],
    ['db.example.com', 'db.example.com'],
    ['localhost.', 'localhost.'],
    ['my_db', 'my_db'],
  ])('%s is dialled as %s', (host, dialled) => {
    expect(driverHostOf(host)).toBe(dialled);
  });

  it.each(['/var/run/postgresql', '/tmp', 'C:\\sockets', '\\\\.\\pipe\\sql\\query', '@abstract', 'db/x'])('refuses %j as a path or socket', (host) => {
    expect(() => dialHostOf(host)).toThrow(new UnsafeHostError(SOCKET_HOST_RULE));
  });

  it.each(['', '[127.0.0.1]', '[db.example.com]', '1.2.3.4.5', '127.0.0.1.', '0x7g.1', 'db.123', 'h1,h2', 'a b', 'bücher.example', '-db.example', 'db\u0000'])(
    'refuses %j as neither a name nor an address',
    (host) => {
      expect(() => dialHostOf(host)).toThrow(new UnsafeHostError(UNREADABLE_HOST_RULE));
    },
  );

  it('is a ConnectionStringError, so a driver config that meets it is never built', () => {
    expect(() => dialHostOf('/tmp')).toThrow(ConnectionStringError);
  });

  it('refuses libpq query parameters that name another server than the URL host', () => {
    expect(() => refuseQueryHosts(new Map([['host', '/tmp']]))).toThrow(new UnsafeHostError(QUERY_HOST_RULE));
    expect(() => refuseQueryHosts(new Map([['hostaddr', '127.0.0.1']]))).toThrow(UnsafeHostError);
    expect(() => refuseQueryHosts(new Map([['sslmode', 'require']]))).not.toThrow();
  });
});
