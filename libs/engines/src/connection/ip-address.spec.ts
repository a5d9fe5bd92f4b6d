import { formatIpAddress, parseIpAddress, sameAddress, unmapped } from './ip-address';

const canonical = (text: string) => {
  const address = parseIpAddress(text);
  return address === null ? null : formatIpAddress(address);
};

describe('parseIpAddress: IP literals as the operating system reads them', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0X7F.0.0.0x1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['000177.0.0.01', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['169.16689662', '169.254.169.254'],
    ['4294967295', '255.255.255.255'],
  ])('IPv4 %s (inet_aton: decimal, octal, hex, short forms) is %s', (text, address) => {
    expect(canonical(text)).toBe(address);
  });

  it.each(['256.0.0.1', '1.2.3.4.5', '08.0.0.1', '0x', '0x.1', '1..1', '.1', '1.', '4294967296', '1.16777216', ' 127.0.0.1', '127.0.0.1 ', '+1', '1e3', ''])(
    'no IPv4 address in %j (the OS would hand it to the resolver)',
    (text) => {
      expect(parseIpAddress(text)).toBeNull();
    },
  );

  it.each([
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['::FFFF:7F00:0001', '::ffff:7f00:1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::', '::'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['64:ff9b::169.254.169.254', '64:ff9b::a9fe:a9fe'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
  ])('IPv6 %s is %s (RFC 5952 text, zone kept)', (text, address) => {
    expect(canonical(text)).toBe(address);
  });

  it.each(['1:2:3:4:5:6:7:8:9', '1::2::3', ':1::', '1:2:3:4:5:6:7:8::', '12345::', '::127.0.0.01', '::1.2.3', 'fe80::1%', 'fe80::1%a b', 'g::1'])('no IPv6 address in %j', (text) => {
    expect(parseIpAddress(text)).toBeNull();
  });

  it('unmaps IPv4-mapped addresses, and compares addresses by what they reach', () => {
    const mapped = parseIpAddress('::ffff:7f00:1')!;
    expect(formatIpAddress(unmapped(mapped))).toBe('127.0.0.1');
    expect(sameAddress(mapped, parseIpAddress('0x7f.1')!)).toBe(true);
    expect(sameAddress(parseIpAddress('::7f00:1')!, parseIpAddress('127.0.0.1')!)).toBe(false);
    expect(formatIpAddress(unmapped(parseIpAddress('64:ff9b::7f00:1')!))).toBe('64:ff9b::7f00:1');
  });
});
