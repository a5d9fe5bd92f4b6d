import { addressClassOf } from './address-class';
import { parseIpAddress } from './ip-address';

const classOf = (text: string) => addressClassOf(parseIpAddress(text)!);

describe('addressClassOf: the classes no target may name, whatever the IPv6 wrapping of an IPv4 address', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.10.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'multicast'],
    ['240.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
  ])('%s is %s', (address, addressClass) => {
    expect(classOf(address)).toBe(addressClass);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback', 'IPv4-mapped'],
    ['::ffff:169.254.169.254', 'metadata', 'IPv4-mapped'],
    ['::ffff:0.0.0.0', 'unspecified', 'IPv4-mapped'],
    ['::127.0.0.1', 'loopback', 'IPv4-compatible'],
    ['::ffff:0:127.0.0.1', 'loopback', 'SIIT'],
    ['64:ff9b::127.0.0.1', 'loopback', 'NAT64'],
    ['64:ff9b:1:2:3:4:a9fe:a9fe', 'metadata', 'local-use NAT64'],
    ['2002:7f00:1::1', 'loopback', '6to4'],
    ['2002:a9fe:a9fe:1::1', 'metadata', '6to4'],
    ['2001:0:7f00:1::1', 'loopback', "Teredo's server"],
    ['2001:0:808:808:0:0:80ff:fffe', 'loopback', "Teredo's client (inverted)"],
  ])('%s is %s (%s)', (address, addressClass) => {
    expect(classOf(address)).toBe(addressClass);
  });

  it.each(['10.0.0.7', '192.168.1.1', '172.16.0.1', '8.8.8.8', '100.64.0.1', '2600::1', 'fd12::1', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])(
    'lets %s through (public and private networks alike)',
    (address) => {
      expect(classOf(address)).toBeNull();
    },
  );
});
