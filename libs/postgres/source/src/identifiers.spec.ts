import { qualifiedName, quoteIdent, trackingNames } from './identifiers';

describe('quoteIdent', () => {
  it('doubles inner quotes', () => {
    expect(quoteIdent('a"b')).toBe('"a""b"');
    expect(qualifiedName({ schema: 'Sales', name: 'Order Lines' })).toBe('"Sales"."Order Lines"');
  });
});

describe('trackingNames', () => {
  it('names the change table <schema>.<table> when it fits', () => {
    expect(trackingNames({ schema: 'public', name: 'orders' })).toEqual({
      changeTable: 'public.orders',
      xidIndex: 'public.orders/xid',
      captureFunction: 'public.orders/capture',
    });
  });

  it('keeps every name within 63 bytes and tells long names apart', () => {
    const long = 'ü'.repeat(40);
    const first = trackingNames({ schema: 'public', name: `${long}a` });
    const second = trackingNames({ schema: 'public', name: `${long}b` });
    expect(first.changeTable).not.toBe(second.changeTable);
    for (const name of [first, second].flatMap((names) => [names.changeTable, names.xidIndex, names.captureFunction])) {
      expect(Buffer.byteLength(name, 'utf8')).toBeLessThanOrEqual(63);
    }
    expect(first.changeTable.startsWith('public.üü')).toBe(true);
  });

  it('tells "a.b"."c" from "a"."b.c", which read the same', () => {
    const dottedSchema = trackingNames({ schema: 'a.b', name: 'c' }).changeTable;
    const dottedName = trackingNames({ schema: 'a', name: 'b.c' }).changeTable;
    expect(dottedName).toBe('a.b.c');
    expect(dottedSchema).toMatch(/^a\.b\.c~[0-9a-f]{12}$/);
  });

  it('never gives a readable name the shape of a hashed one', () => {
    expect(trackingNames({ schema: 'public', name: 'x~0123456789ab' }).changeTable).toMatch(/~[0-9a-f]{12}$/);
    expect(trackingNames({ schema: 'public', name: 'x~0123456789ab' }).changeTable).not.toBe('public.x~0123456789ab');
  });
});
