import { findNatsServer } from './nats-server-binary';

describe('findNatsServer', () => {
  const only = (...paths: string[]) => (path: string) => paths.includes(path);

  it('takes NATS_SERVER_BIN when set, and only it', () => {
    expect(findNatsServer({ NATS_SERVER_BIN: '/opt/nats/nats-server', PATH: '/usr/bin' }, only('/opt/nats/nats-server', '/usr/bin/nats-server'))).toEqual({
      binary: '/opt/nats/nats-server',
    });
    expect(findNatsServer({ NATS_SERVER_BIN: '/opt/nats/missing', PATH: '/usr/bin' }, only('/usr/bin/nats-server'))).toEqual({
      problem: 'NATS_SERVER_BIN is /opt/nats/missing, which is not an executable file: set it to the path of nats-server',
    });
  });

  it('finds nats-server on PATH, in PATH order, then where packages put it though PATH lacks it (Debian: /usr/sbin)', () => {
    expect(findNatsServer({ PATH: '/home/me/bin:/usr/bin' }, only('/usr/bin/nats-server', '/home/me/bin/nats-server'))).toEqual({ binary: '/home/me/bin/nats-server' });
    expect(findNatsServer({ PATH: '/usr/bin:/bin' }, only('/usr/sbin/nats-server'))).toEqual({ binary: '/usr/sbin/nats-server' });
  });

  it('says how to get one when there is none: install it, NATS_SERVER_BIN, or a server of the user own with NATS_URL', () => {
    const lookup = findNatsServer({ PATH: '/usr/bin' }, only());
    expect('problem' in lookup && lookup.problem).toMatch(/^npm start runs its own NATS server .* found no nats-server on PATH nor in \/usr\/sbin/);
    expect('problem' in lookup && lookup.problem).toContain('apt install nats-server');
    expect('problem' in lookup && lookup.problem).toContain('set NATS_SERVER_BIN to its path');
    expect('problem' in lookup && lookup.problem).toContain('set NATS_URL');
  });
});
