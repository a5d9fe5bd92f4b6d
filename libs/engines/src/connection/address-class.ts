import { BlockList } from 'node:net';
import { formatIpAddress, type IpAddress } from './ip-address';

/**
 * The address classes no connection string may reach (loopback only unless the operator allows it), most
 * telling first: an address that is in several (a metadata address is link-local too) is named by the first.
 */
export const ADDRESS_CLASSES = ['metadata', 'link-local', 'unspecified', 'multicast', 'loopback'] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

type Range = [address: string, prefix: number];

const RANGES: Record<AddressClass, { v4: Range[]; v6: Range[] }> = {
  // AWS, GCP, Azure and OCI (169.254.169.254, with AWS's IPv6 endpoint), Alibaba Cloud (100.100.100.200).
  metadata: { v4: [['169.254.169.254', 32], ['100.100.100.200', 32]], v6: [['fd00:ec2::254', 128]] },
  'link-local': { v4: [['169.254.0.0', 16]], v6: [['fe80::', 10]] },
  // 0.0.0.0/8 is "this network": Linux connects 0.0.0.0 to the host itself.
  unspecified: { v4: [['0.0.0.0', 8]], v6: [['::', 128]] },
  // Multicast, and 240.0.0.0/4 (reserved, with the broadcast address 255.255.255.255).
  multicast: { v4: [['224.0.0.0', 4], ['240.0.0.0', 4]], v6: [['ff00::', 8]] },
  loopback: { v4: [['127.0.0.0', 8]], v6: [['::1', 128]] },
};

const BLOCK_LISTS = new Map<AddressClass, BlockList>(
  ADDRESS_CLASSES.map((addressClass) => {
    const list = new BlockList();
    for (const [address, prefix] of RANGES[addressClass].v4) list.addSubnet(address, prefix, 'ipv4');
    for (const [address, prefix] of RANGES[addressClass].v6) list.addSubnet(address, prefix, 'ipv6');
    return [addressClass, list];
  }),
);

/**
 * The class of an address, or null for one the service may connect to (public and private networks alike). An IPv6
 * address that carries an IPv4 address a packet can reach (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
 * `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo's server and
 * client) has the class of that IPv4 address when its own is none.
 */
export function addressClassOf(address: IpAddress): AddressClass | null {
  for (const candidate of [address, ...embeddedIpv4(address)]) {
    const text = formatIpAddress({ family: candidate.family, bytes: candidate.bytes });
    const type = candidate.family === 4 ? 'ipv4' : 'ipv6';
    const found = ADDRESS_CLASSES.find((addressClass) => BLOCK_LISTS.get(addressClass)?.check(text, type) === true);
    if (found !== undefined) return found;
  }
  return null;
}

function embeddedIpv4(address: IpAddress): IpAddress[] {
  if (address.family === 4) return [];
  const bytes = address.bytes;
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((byte) => byte === 0);
  const ipv4 = (from: number, invert = false): IpAddress => ({ family: 4, bytes: bytes.slice(from, from + 4).map((byte) => (invert ? byte ^ 0xff : byte)) });
  const word = (index: number) => ((bytes[2 * index] ?? 0) << 8) | (bytes[2 * index + 1] ?? 0);
  const found: IpAddress[] = [];
  // ::a.b.c.d (compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT)
  if (zeros(0, 10) && (word(5) === 0 || word(5) === 0xffff)) found.push(ipv4(12));
  if (zeros(0, 8) && word(4) === 0xffff && word(5) === 0) found.push(ipv4(12));
  // NAT64: the well-known prefix 64:ff9b::/96 and the local-use 64:ff9b:1::/48 (RFC 6052, RFC 8215)
  if (word(0) === 0x64 && word(1) === 0xff9b && (zeros(4, 12) || word(2) === 1)) found.push(ipv4(12));
  // 6to4: 2002:AABB:CCDD::/48
  if (word(0) === 0x2002) found.push(ipv4(2));
  // Teredo 2001:0::/32: the server's address, then the client's, stored inverted
  if (word(0) === 0x2001 && word(1) === 0) found.push(ipv4(4), ipv4(12, true));
  return found;
}
