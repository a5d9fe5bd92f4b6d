import { baseNameOf, comparePositions, fileSequence, positionOf, versionOf, type BinlogPosition } from './binlog-position';

const at = (file: string, position: number): BinlogPosition => ({ file, position });

describe('binary-log positions as versions', () => {
  it.each<[BinlogPosition, string]>([
    [at('binlog.000001', 4), String(2 ** 32 + 4)],
    [at('binlog.000042', 1234), String(42 * 2 ** 32 + 1234)],
    [at('mysql-bin.000003', 0), String(3 * 2 ** 32)],
    [at('binlog.000000', 4), '4'],
    [at('binlog.000001', 2 ** 32 - 1), String(2 * 2 ** 32 - 1)],
    // The server goes on past binlog.999999 with a seventh digit.
    [at('binlog.1000000', 4), (1_000_000n * 2n ** 32n + 4n).toString()],
  ])('%j is version %s, and back', (position, version) => {
    expect(versionOf(position)).toBe(version);
    expect(positionOf(version, baseNameOf(position.file))).toEqual(position);
  });

  it('writes the file sequence back with at least six digits, as the server names its files', () => {
    expect(positionOf(versionOf(at('binlog.000007', 99)), 'binlog')).toEqual(at('binlog.000007', 99));
    expect(positionOf(versionOf(at('binlog.1234567', 99)), 'binlog')).toEqual(at('binlog.1234567', 99));
  });

  it('is exact beyond 2^53 (sequences of millions of files)', () => {
    const position = at('binlog.9999999', 4_294_967_295);
    const version = versionOf(position);
    expect(BigInt(version)).toBe(9_999_999n * 2n ** 32n + 4_294_967_295n);
    expect(positionOf(version, 'binlog')).toEqual(position);
  });

  it('orders versions of one server as its log orders positions, compared as numbers', () => {
    const positions = [at('binlog.000001', 4), at('binlog.000001', 999_999), at('binlog.000002', 4), at('binlog.000010', 120), at('binlog.999999', 4_294_967_295), at('binlog.1000000', 4)];
    const versions = positions.map((position) => BigInt(versionOf(position)));
    expect([...versions].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0))).toEqual(versions);
    for (let index = 1; index < positions.length; index += 1) {
      const [earlier, later] = [positions[index - 1] ?? at('x.0', 0), positions[index] ?? at('x.0', 0)];
      expect(comparePositions(earlier, later)).toBeLessThan(0);
      expect(comparePositions(later, earlier)).toBeGreaterThan(0);
    }
  });

  it('compares positions by file sequence first, then offset', () => {
    expect(comparePositions(at('binlog.000002', 4), at('binlog.000001', 4_000_000))).toBeGreaterThan(0);
    expect(comparePositions(at('binlog.000002', 400), at('binlog.000002', 4))).toBeGreaterThan(0);
    expect(comparePositions(at('binlog.000002', 4), at('binlog.000002', 4))).toBe(0);
    // By number, not by text: 1000000 follows 999999.
    expect(comparePositions(at('binlog.1000000', 4), at('binlog.999999', 4))).toBeGreaterThan(0);
  });

  it('reads the sequence and the base name of a file name', () => {
    expect(fileSequence('binlog.000042')).toBe(42);
    expect(fileSequence('host.example.com-bin.000003')).toBe(3);
    expect(baseNameOf('host.example.com-bin.000003')).toBe('host.example.com-bin');
    expect(baseNameOf('binlog.1000000')).toBe('binlog');
  });

  it.each(['binlog', 'binlog.', 'binlog.00a1', 'binlog.000001.gz', ''])('refuses %j as a file name', (file) => {
    expect(() => fileSequence(file)).toThrow(RangeError);
    expect(() => versionOf(at(file, 4))).toThrow(RangeError);
  });

  it.each(['', 'abc', '-1', '1.5', '1e9', ' 42', '0x10', '42 '])('refuses %j as a version', (version) => {
    expect(() => positionOf(version, 'binlog')).toThrow(RangeError);
  });

  it.each([-1, 2 ** 32, 1.5, Number.NaN])('refuses an offset of %d, which would name a place in another file', (position) => {
    expect(() => versionOf(at('binlog.000001', position))).toThrow(RangeError);
  });
});
