import { MAX_IDENTIFIER_BYTES, quoteIdent, quoteLiteral } from './identifiers';
import { shadowTableName, targetTableName } from './table-names';

describe('warehouse table names', () => {
  it('keeps the name of a table in a default schema', () => {
    expect(targetTableName({ schema: 'public', name: 'orders' })).toBe('orders');
    expect(targetTableName({ schema: 'dbo', name: 'Orders' })).toBe('Orders');
  });

  it('prefixes the schema otherwise', () => {
    expect(targetTableName({ schema: 'sales', name: 'orders' })).toBe('sales_orders');
    expect(targetTableName({ schema: 'Public', name: 'orders' })).toBe('Public_orders');
  });

  it('shortens names over 63 bytes with a hash, so that long names sharing a prefix stay apart', () => {
    const schema = 'ü'.repeat(30);
    const first = targetTableName({ schema, name: 'measurements_first' });
    const second = targetTableName({ schema, name: 'measurements_second' });
    for (const name of [first, second, shadowTableName(first)]) {
      expect(Buffer.byteLength(name, 'utf8')).toBeLessThanOrEqual(MAX_IDENTIFIER_BYTES);
      expect(name).not.toContain('\uFFFD');
    }
    expect(first).not.toBe(second);
    expect(first.startsWith('üü')).toBe(true);
    expect(shadowTableName('orders')).toBe('svc_seed_orders');
  });
});

describe('quoting', () => {
  it('doubles embedded quotes', () => {
    expect(quoteIdent('a"b')).toBe('"a""b"');
    expect(quoteLiteral(`it's a\\b`)).toBe(`E'it''s a\\\\b'`);
  });

  it('refuses a NUL in a literal', () => {
    expect(() => quoteLiteral('a\0b')).toThrow(/NUL/);
  });
});
