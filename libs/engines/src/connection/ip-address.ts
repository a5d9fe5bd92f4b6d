/**
 * IP address literals as the operating system reads them where a driver hands a host to `net.connect` or
 * `dns.lookup` (glibc's getaddrinfo: `inet_aton` without trailing text for IPv4, `inet_pton` for IPv6, and a zone
 * after `%`). A host that parses here is an address whatever its spelling (`0x7f.1`, `2130706433`, `0177.0.0.1`,
 * `127.1`, `::ffff:7f00:1`); anything else is a name for the resolver, or no host at all.
 */

/** An IP address: its 4 or 16 bytes, and an IPv6 zone when one was given. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  /** The zone of a scoped IPv6 address (`eth0` of `fe80::1%eth0`). */
  readonly zone?: string;
}

// inet_aton's parts: C integer literals (0x hex, 0 octal, else decimal), each starting with a digit.
const IPV4_PART = /^(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;
// The largest last part for a.b.c.d, a.b.c (16 bits), a.b (24 bits) and a (32 bits).
const IPV4_LAST_PART_MAX = [0xffffffffn, 0xffffffn, 0xffffn, 0xffn] as const;
// inet_pton's dotted quad, also the tail of an IPv6 address: four decimal octets, no leading zeros.
const DOTTED_QUAD = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)){3}$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
// Node's net.isIPv6 takes a zone of these characters; with any other, Node would hand the text to the resolver.
const ZONE = /^[0-9a-zA-Z.:-]+$/;

/** The address a literal names, or null when the text is no IP address (a name, or nothing readable). */
export function parseIpAddress(text: string): IpAddress | null {
  if (text.includes(':')) return parseIpv6(text);
  const bytes = parseIpv4(text);
  return bytes === null ? null : { family: 4, bytes };
}

/** The canonical text of an address: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as `::`) with its zone. */
export function formatIpAddress(address: IpAddress): string {
  if (address.family === 4) return [...address.bytes].join('.');
  const groups = Array.from({ length: 8 }, (_, index) => ((address.bytes[2 * index] ?? 0) << 8) | (address.bytes[2 * index + 1] ?? 0));
  const run = longestZeroRun(groups);
  const hex = (part: number[]) => part.map((group) => group.toString(16)).join(':');
  const text = run === null ? hex(groups) : `${hex(groups.slice(0, run.start))}::${hex(groups.slice(run.start + run.length))}`;
  return address.zone === undefined ? text : `${text}%${address.zone}`;
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) stands for; any other address as it is. */
export function unmapped(address: IpAddress): IpAddress {
  if (address.family === 4 || !isMapped(address.bytes)) return address;
  return { family: 4, bytes: address.bytes.slice(12) };
}

/** Whether two addresses are the same host: equal bytes once IPv4-mapped forms are unmapped (zones aside). */
export function sameAddress(a: IpAddress, b: IpAddress): boolean {
  const left = unmapped(a).bytes;
  const right = unmapped(b).bytes;
  return left.length === right.length && left.every((byte, index) => byte === right[index]);
}

function isMapped(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length > 4 || !parts.every((part) => IPV4_PART.test(part))) return null;
  const values = parts.map(integerOf);
  const last = values.pop() ?? 0n;
  if (values.some((value) => value > 0xffn) || last > (IPV4_LAST_PART_MAX[values.length] ?? 0n)) return null;
  let word = last;
  values.forEach((value, index) => {
    word |= value << BigInt(24 - 8 * index);
  });
  return Uint8Array.from([24, 16, 8, 0], (shift) => Number((word >> BigInt(shift)) & 0xffn));
}

function integerOf(part: string): bigint {
  if (/^0[xX]/.test(part)) return BigInt(`0x${part.slice(2)}`);
  if (part.length > 1 && part.startsWith('0')) return BigInt(`0o${part.slice(1)}`);
  return BigInt(part);
}

function parseIpv6(text: string): IpAddress | null {
  const percent = text.indexOf('%');
  const zone = percent === -1 ? undefined : text.slice(percent + 1);
  if (zone !== undefined && !ZONE.test(zone)) return null;
  const address = percent === -1 ? text : text.slice(0, percent);
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0] ?? '', halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '', true) : [];
  if (head === null || tail === null) return null;
  const given = head.length + tail.length;
  // `::` stands for one zero group at least; without it, all eight are written.
  if (halves.length === 2 ? given > 7 : given !== 8) return null;
  const groups = [...head, ...Array<number>(8 - given).fill(0), ...tail];
  const bytes = Uint8Array.from(groups.flatMap((group) => [group >> 8, group & 0xff]));
  return zone === undefined ? { family: 6, bytes } : { family: 6, bytes, zone };
}

/** The 16-bit groups of one side of `::` (a dotted quad may end the last side), or null. */
function groupsOf(text: string, last: boolean): number[] | null {
  if (text === '') return [];
  const pieces = text.split(':');
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (last && index === pieces.length - 1 && DOTTED_QUAD.test(piece)) {
      const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
      groups.push((a << 8) | b, (c << 8) | d);
    } else if (HEX_GROUP.test(piece)) {
      groups.push(parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function longestZeroRun(groups: number[]): { start: number; length: number } | null {
  let best: { start: number; length: number } | null = null;
  let start = -1;
  for (let index = 0; index <= groups.length; index += 1) {
    if (index < groups.length && groups[index] === 0) {
      if (start === -1) start = index;
    } else if (start !== -1) {
      const length = index - start;
      if (length >= 2 && (best === null || length > best.length)) best = { start, length };
      start = -1;
    }
  }
  return best;
}
