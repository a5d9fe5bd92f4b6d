import { isLoopbackHost } from './loopback-host';

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.255.0.9', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '[::ffff:7f00:1]'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '10.0.0.5', '128.0.0.1', '192.168.1.20', '[::ffff:a00:5]', 'example.com', 'localhost.example.com', '127.0.0.1.nip.io', ''])('%s is not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
