import { lookup } from 'node:dns/promises';
import { BlockList, isIP, isIPv6 } from 'node:net';
import { UnsafeHostError, dialHostOf, formatIpAddress, type IpAddress } from '@svc/engines';
import { warehouseClientConfig } from '@svc/postgres/common';
import { seededRandom } from '@svc/testing';
import { databaseAccessOf } from './engine';
import { targetPolicyProblems, type ResolveHost, type TargetPolicy } from './target-policy';

/**
 * Issue 36: 10,000 seeded spellings of addresses, in every grammar that names a host, each checked three ways: the
 * operating system reads the spelling as the address it was generated from (glibc's inet_aton for IPv4, Node's and
 * libuv's inet_pton for IPv6), the driver is given that very address (so it dials it without a lookup), and the host
 * policy refuses it exactly when a reference classifier, written here apart from the library's, says it must.
 */

const CASES = 10_000;
const SEED = 0x36;


type Class = 'metadata' | 'link-local' | 'unspecified' | 'multicast' | 'loopback' | null;

/** The reference: which class an IPv4 address (as an integer) is in. */
function classOfIpv4(value: number): Class {
  const inRange = (base: number, bits: number) => value >>> (32 - bits) === base >>> (32 - bits);
  if (value === 0xa9fea9fe || value === 0x646464c8) return 'metadata';
  if (inRange(0xa9fe0000, 16)) return 'link-local';
  if (inRange(0, 8)) return 'unspecified';
  if (inRange(0xe0000000, 4) || inRange(0xf0000000, 4)) return 'multicast';
  if (inRange(0x7f000000, 8)) return 'loopback';
  return null;
}

/** The reference for IPv6 (eight 16-bit groups), with the IPv4 address an embedding form carries. */
function classOfIpv6(groups: number[]): Class {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const zeroUpTo = (count: number) => groups.slice(0, count).every((group) => group === 0);
  const low32 = ((g6 << 16) | g7) >>> 0;
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g7 === 1) return 'loopback';
  if (groups.join(':') === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(':')) return 'metadata';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  const embedded: number[] = [];
  if (zeroUpTo(5) && (g5 === 0 || g5 === 0xffff)) embedded.push(low32);
  if (zeroUpTo(4) && g4 === 0xffff && g5 === 0) embedded.push(low32);
  if (g0 === 0x64 && g1 === 0xff9b && ((g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) || g2 === 1)) embedded.push(low32);
  if (g0 === 0x2002) embedded.push(((g1 << 16) | g2) >>> 0);
  if (g0 === 0x2001 && g1 === 0) embedded.push(((g2 << 16) | g3) >>> 0, ~low32 >>> 0);
  for (const ipv4 of embedded) {
    const found = classOfIpv4(ipv4);
    if (found !== null) return found;
  }
  return null;
}

interface Truth {
  family: 4 | 6;
  /** IPv4 as an integer, or IPv6 as eight groups. */
  value: number | number[];
  text: string;
  addressClass: Class;
}

function ipv4Truth(value: number): Truth {
  const text = [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
  return { family: 4, value, text, addressClass: classOfIpv4(value) };
}

function ipv6Truth(groups: number[]): Truth {
  const bytes = Uint8Array.from(groups.flatMap((group) => [group >> 8, group & 0xff]));
  const address: IpAddress = { family: 6, bytes };
  return { family: 6, value: groups, text: formatIpAddress(address), addressClass: classOfIpv6(groups) };
}

/** An address drawn so that about half are in a class the policy refuses, and every IPv4-in-IPv6 form is exercised. */
function drawTruth(next: () => number): Truth {
  const int = (bound: number) => Math.floor(next() * bound);
  const u32 = () => (int(0x10000) * 0x10000 + int(0x10000)) >>> 0;
  const ipv4 = (): number => {
    const pick = int(10);
    const within = (base: number, bits: number) => (base | (u32() >>> bits)) >>> 0;
    if (pick === 0) return within(0x7f000000, 8);
    if (pick === 1) return within(0, 8);
    if (pick === 2) return within(0xa9fe0000, 16);
    if (pick === 3) return [0xa9fea9fe, 0x646464c8, 0x7f000001, 0, 0xffffffff][int(5)] ?? 0;
    if (pick === 4) return within(0xe0000000, 3);
    if (pick === 5) return within(0x0a000000, 8);
    return u32();
  };
  const split = (value: number) => [value >>> 16, value & 0xffff];
  const group = () => int(0x10000);
  switch (int(12)) {
    case 0:
    case 1:
    case 2:
    case 3:
      return ipv4Truth(ipv4());
    case 4:
      return ipv6Truth([0, 0, 0, 0, 0, 0xffff, ...split(ipv4())]);
    case 5:
      return ipv6Truth([0, 0, 0, 0, 0, 0, ...split(ipv4())]);
    case 6:
      return ipv6Truth(next() < 0.5 ? [0x64, 0xff9b, 0, 0, 0, 0, ...split(ipv4())] : [0x64, 0xff9b, 1, group(), group(), group(), ...split(ipv4())]);
    case 7:
      return ipv6Truth([0x2002, ...split(ipv4()), group(), group(), group(), group(), group()]);
    case 8:
      return ipv6Truth([0x2001, 0, ...split(ipv4()), group(), group(), ...split(~ipv4() >>> 0)]);
    case 9: {
      const fixed = [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0], [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254], [0xfe80, 0, 0, 0, group(), group(), group(), group()]];
      return ipv6Truth(fixed[int(fixed.length)] ?? []);
    }
    case 10:
      return ipv6Truth([0xfe80 | int(0x40), group(), 0, 0, group(), 0, 0, group()].map((part, index) => (index === 0 ? part : next() < 0.5 ? 0 : part)));
    default: {
      // Multicast, or a global unicast address (2600::/8 here) the policy lets through.
      const first = next() < 0.5 ? 0xff00 | int(0x100) : 0x2600 | int(0x100);
      return ipv6Truth([first, ...Array.from({ length: 7 }, () => (next() < 0.5 ? 0 : group()))]);
    }
  }
}

/** One of the spellings the operating system reads as `truth`: inet_aton's forms for IPv4, inet_pton's for IPv6. */
function spell(truth: Truth, next: () => number): string {
  const int = (bound: number) => Math.floor(next() * bound);
  const mixCase = (text: string) => [...text].map((char) => (next() < 0.5 ? char.toUpperCase() : char.toLowerCase())).join('');
  if (typeof truth.value === 'number') {
    const value = truth.value;
    const count = 1 + int(4);
    const parts = [...Array<number>(count - 1).keys()].map((index) => (value >>> (24 - 8 * index)) & 0xff);
    parts.push(count === 4 ? value & 0xff : (value & (0xffffffff >>> (8 * (count - 1)))) >>> 0);
    return parts
      .map((part) => {
        const radix = int(3);
        if (radix === 0) return String(part);
        if (radix === 1) return `0${'0'.repeat(int(3))}${part.toString(8)}`;
        return `0${next() < 0.5 ? 'x' : 'X'}${'0'.repeat(int(3))}${mixCase(part.toString(16))}`;
      })
      .join('.');
  }
  const groups = truth.value;
  const dottedTail = next() < 0.3;
  // Each group with up to four digits: leading zeros at random, letters in either case.
  const pieces = groups.map((group) => {
    const hex = group.toString(16);
    return mixCase(hex.padStart(hex.length + int(5 - hex.length), '0'));
  });
  const [g6 = 0, g7 = 0] = groups.slice(6);
  const tail = dottedTail ? [`${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`] : [];
  const written = dottedTail ? pieces.slice(0, 6) : pieces;
  // Compress one run of zero groups (any, not only the longest), or none.
  const zeroRuns: [number, number][] = [];
  for (let start = 0; start < written.length; start += 1) {
    for (let end = start + 1; end <= written.length && groups[end - 1] === 0; end += 1) zeroRuns.push([start, end]);
  }
  const run = zeroRuns.length > 0 && next() < 0.7 ? zeroRuns[int(zeroRuns.length)] : undefined;
  if (run === undefined) return [...written, ...tail].join(':');
  const head = written.slice(0, run[0]).join(':');
  const rest = [...written.slice(run[1]), ...tail].join(':');
  return `${head}::${rest}`;
}

/** Percent-encodes some characters, as a URL may (the URL parser keeps them, the grammar decodes them). */
function percentSome(host: string, next: () => number): string {
  return [...host].map((char) => (next() < 0.15 ? `%${char.charCodeAt(0).toString(16).padStart(2, '0')}` : char)).join('');
}

interface Embedded {
  grammar: string;
  field: 'Source\\ConnectionString' | 'Warehouse\\Url';
  text: string;
}

function embed(spelling: string, truth: Truth, next: () => number): Embedded {
  const int = (bound: number) => Math.floor(next() * bound);
  const urlHost = truth.family === 6 ? `[${spelling}]` : percentSome(spelling, next);
  const adoHost = truth.family === 6 && next() < 0.5 ? `[${spelling}]` : spelling;
  const grammars: (() => Embedded)[] = [
    () => ({ grammar: 'postgres URL', field: 'Source\\ConnectionString', text: `postgres://u:pw@${urlHost}:6432/sales` }),
    () => ({ grammar: 'mssql URL', field: 'Source\\ConnectionString', text: `mssql://u:pw@${urlHost}:1433/sales` }),
    () => {
      const key = ['Server', 'Data Source', 'Addr', 'Address', 'Network Address'][int(5)] ?? 'Server';
      const prefix = next() < 0.5 ? 'tcp:' : '';
      const suffix = ['', ',1433', '\\INST', '\\INST,1433'][int(4)] ?? '';
      return { grammar: `ADO ${key}=`, field: 'Source\\ConnectionString', text: `${key}=${prefix}${adoHost}${suffix};Database=sales;User Id=u;Password=pw` };
    },
    () => ({ grammar: 'warehouse postgres URL', field: 'Warehouse\\Url', text: `postgres://${urlHost}:5432` }),
    () => ({ grammar: 'warehouse redshift URL', field: 'Warehouse\\Url', text: `redshift://${urlHost}:5439` }),
    () => ({ grammar: 'warehouse host:port', field: 'Warehouse\\Url', text: `${truth.family === 6 ? `[${spelling}]` : spelling}:5439` }),
  ];
  return grammars[int(grammars.length)]();
}

/** The host the engine's driver is given for the string: read off the very driver config the connectors build. */
function driverHost(embedded: Embedded): string {
  if (embedded.field === 'Warehouse\\Url') return String(warehouseClientConfig({ url: embedded.text, databaseName: 'dev', username: 'u', password: 'p' }, 1000).host);
  const access = databaseAccessOf(embedded.text);
  if (access === null) throw new Error(`${embedded.grammar}: no engine reads ${embedded.text}`);
  return access.endpoint(embedded.text).host;
}

function sameAddressAs(truth: Truth, text: string): boolean {
  const list = new BlockList();
  list.addAddress(truth.text, truth.family === 4 ? 'ipv4' : 'ipv6');
  return isIP(text) === truth.family && list.check(text, truth.family === 4 ? 'ipv4' : 'ipv6');
}

const policy: TargetPolicy = { controlDatabase: { host: '127.0.0.1', port: 5432, database: 'svc_registry' }, allowLoopback: false };
// Nothing resolves: a spelling read as a name instead of an address would slip through, and the fuzz would see it.
const resolveNothing: ResolveHost = () => Promise.reject(new Error('ENOTFOUND'));

function target(embedded: Embedded) {
  if (embedded.field === 'Source\\ConnectionString') return { source: { connectionString: embedded.text, encryptDataInTransit: false } };
  return {
    warehouse: { url: embedded.text, databaseName: 'dev', username: 'u', password: 'p', accessType: 'AccessKey' as const, bucketName: 'b', bucketFolderName: '', regionEndpoint: '', retentionDays: 1, databaseSchema: 'dw', scdType: 'Type1' as const },
  };
}

describe('host policy fuzz (issue 36): every spelling of a refused address is refused, and is what the driver dials', () => {
  it(`${CASES} seeded spellings in every grammar`, async () => {
    const next = seededRandom(SEED);
    const failures: string[] = [];
    const osChecks: Promise<void>[] = [];
    const seen = { refused: 0, allowed: 0, grammars: new Set<string>() };
    for (let index = 0; index < CASES && failures.length < 20; index += 1) {
      const truth = drawTruth(next);
      const spelling = spell(truth, next);
      const embedded = embed(spelling, truth, next);
      seen.grammars.add(embedded.grammar);
      const context = `#${index} ${embedded.grammar} ${JSON.stringify(embedded.text)} (${truth.text}, ${truth.addressClass ?? 'allowed'})`;

      // 1. The operating system reads the spelling as the truth: what a driver given the spelling would have dialled.
      if (truth.family === 4) {
        osChecks.push(
          lookup(spelling, { family: 4 }).then(
            ({ address }) => void (address === truth.text || failures.push(`${context}: the OS reads ${spelling} as ${address}`)),
            () => void failures.push(`${context}: the OS does not read ${spelling} as an address`),
          ),
        );
      } else if (!isIPv6(spelling) || !sameAddressAs(truth, spelling)) {
        failures.push(`${context}: Node does not read ${spelling} as ${truth.text}`);
      }

      // 2. The driver is given the checked address itself, as an IP literal it dials without a lookup.
      const host = driverHost(embedded);
      if (!sameAddressAs(truth, host)) failures.push(`${context}: the driver is given ${host}`);

      // 3. The policy refuses it exactly when the reference says so (loopback too, as ALLOW_LOOPBACK_TARGETS is off).
      const problems = await targetPolicyProblems(target(embedded), policy, resolveNothing);
      const refused = problems.length > 0;
      if (refused !== (truth.addressClass !== null)) failures.push(`${context}: policy answered ${JSON.stringify(problems)}`);
      if (refused) seen.refused += 1;
      else seen.allowed += 1;
      if (problems.some((problem) => !problem.startsWith(`{${embedded.field}}: names `) || problem.includes('pw'))) failures.push(`${context}: worded ${JSON.stringify(problems)}`);
    }
    await Promise.all(osChecks);
    expect(failures).toEqual([]);
    // The fuzz covers what it claims: both outcomes, and every grammar.
    expect(seen.refused).toBeGreaterThan(CASES / 4);
    expect(seen.allowed).toBeGreaterThan(CASES / 10);
    expect(seen.grammars.size).toBe(10);
    // Thousands of getaddrinfo calls on libuv's four threads: about 2.5 s alone, past jest's 5 s default beside the other unit suites.
  }, 60_000);

  it.each(['1.2.3.4.5', '0x7g.1', '127.0.0.1.', '08.0.0.1', '0x', '256.0.0.1.1', '4294967296', '127.0.0.0x100', '::ffff:127.0.0.01', '1:2:3:4:5:6:7:8:9', '[127.0.0.1]'])(
    'reads %j, numeric but no address to the OS (which would ask the resolver), as no host at all',
    (host) => {
      expect(() => dialHostOf(host)).toThrow(UnsafeHostError);
    },
  );
});
