import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether `host` (a host name, an IP address, or a URL's hostname with IPv6 brackets) names this machine's
 * loopback interface: localhost, 127.0.0.0/8, ::1 (also written as an IPv4-mapped address). Traffic to it
 * never leaves the machine, so plain HTTP there exposes nothing on the network.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  if (family === 0) return false;
  return LOOPBACK.check(bare, family === 6 ? 'ipv6' : 'ipv4');
}
