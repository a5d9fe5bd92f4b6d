import { canonical, digestOf, project, withColumn, type TableSpec } from './table-spec';

describe('canonical values: one text per value whichever engine read it', () => {
  it.each([
    ['decimal(38,10)', '1.0000000001', '1.0000000001'],
    ['decimal(38,10)', '2.5000000000', '2.5'],
    ['decimal(12,2)', '100.00', '100'],
    ['decimal(12,2)', '-0.50', '-0.5'],
    ['decimal(12,2)', '007.10', '7.1'],
    ['timestamptz', '2026-01-01 00:01:00+00', '2026-01-01T00:01:00.000000Z'],
    ['timestamptz', '2026-01-01T02:01:00.5+02:00', '2026-01-01T00:01:00.500000Z'],
    ['timestamptz', '2026-01-01 00:01:00.1234567 +00:00', '2026-01-01T00:01:00.123456Z'],
    ['bytes', '\\xDEADbeef', 'deadbeef'],
    ['bytes', '0xDEADBEEF', 'deadbeef'],
    ['uuid', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ['json', '{"tag": "x1", "n": 1}', '{"n":1,"tag":"x1"}'],
    ['text[]', '["a1", "b,\\"c\\""]', '["a1","b,\\"c\\""]'],
    ['boolean', 't', 'true'],
    ['boolean', '0', 'false'],
    ['text', ' kept as is ', ' kept as is '],
  ] as const)('%s %p → %p', (type, text, expected) => {
    expect(canonical(type, text)).toBe(expected);
  });

  it('keeps NULL apart from the empty string', () => {
    expect(canonical('text', null)).toBeNull();
    expect(canonical('text', '')).toBe('');
  });

  it('refuses text that is no instant instead of comparing it as text', () => {
    expect(() => canonical('timestamptz', 'yesterday')).toThrow('not an instant');
  });
});

describe('digestOf', () => {
  it('does not depend on the order rows were read in', () => {
    expect(digestOf([['1', 'a'], ['2', null]])).toEqual(digestOf([['2', null], ['1', 'a']]));
  });

  it('tells NULL, the empty string and a changed value apart', () => {
    const digests = [[['1', null]], [['1', '']], [['1', 'x']]].map((rows) => digestOf(rows).hash);
    expect(new Set(digests).size).toBe(3);
  });
});

describe('spec helpers', () => {
  const spec: TableSpec = { schema: 'public', name: 't', columns: [{ name: 'id', type: 'int' }, { name: 'v', type: 'text' }], primaryKey: ['id'] };

  it('adds a column at the end and projects columns by name', () => {
    const added = withColumn(spec, { name: 'x', type: 'int' });
    expect(added.columns.map((column) => column.name)).toEqual(['id', 'v', 'x']);
    expect(project(added, ['x', 'id']).columns.map((column) => column.name)).toEqual(['x', 'id']);
    expect(() => project(spec, ['nope'])).toThrow('public.t has no column nope');
  });
});
