import { MAX_IDENTIFIER_BYTES, quoteIdent, quoteLiteral } from './identifiers';
import { shadowTableName, targetTableName } from './table-names';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';

describe('warehouse table names', () => {
  it('keeps the name of a table in a default schema', () => {
    expect(targetTableName({ schema: 'public', name: 'orders' }, TEST_BARE_NAME_SCHEMAS)).toBe('orders');
    expect(targetTableName({ schema: 'dbo', name: 'Orders' }, TEST_BARE_NAME_SCHEMAS)).toBe('Orders');
  });

  it('prefixes the schema otherwise', () => {
    expect(targetTableName({ schema: 'sales', name: 'orders' }, TEST_BARE_NAME_SCHEMAS)).toBe('sales_orders');
    expect(targetTableName({ schema: 'Public', name: 'orders' }, TEST_BARE_NAME_SCHEMAS)).toBe('Public_orders');
  });

  it('shortens names over 63 bytes with a hash, so that long names sharing a prefix stay apart', () => {
    const schema = 'ü'.repeat(30);
    const first = targetTableName({ schema, name: 'measurements_first' }, TEST_BARE_NAME_SCHEMAS);
    const second = targetTableName({ schema, name: 'measurements_second' }, TEST_BARE_NAME_SCHEMAS);
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
