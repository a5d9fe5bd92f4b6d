import { guardReleaseTablesRequest, guardReplicationIdMessage, isUuid } from './guards';

describe('guardReplicationIdMessage', () => {
  it('accepts a GUID in any case', () => {
    expect(guardReplicationIdMessage({ replicationId: '3F2504E0-4F89-11D3-9A0C-0305E82C3301' })).toEqual({
      ok: true,
      value: { replicationId: '3F2504E0-4F89-11D3-9A0C-0305E82C3301' },
    });
  });

  it.each([[{}], [{ replicationId: 7 }], [{ replicationId: 'not-a-guid' }]])('refuses %p', (message) => {
    expect(guardReplicationIdMessage(message)).toEqual({ ok: false, problems: ['replicationId: must be a GUID'] });
  });

  it.each([[null], ['3f2504e0-4f89-11d3-9a0c-0305e82c3301']])('refuses %p, which is no object', (message) => {
    expect(guardReplicationIdMessage(message)).toEqual({ ok: false, problems: ['message: must be an object'] });
  });

  it('passes on the replication id only', () => {
    const replicationId = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    expect(guardReplicationIdMessage({ replicationId, sql: 'DROP TABLE x' })).toEqual({ ok: true, value: { replicationId } });
  });

  it('tells a UUID from other text', () => {
    expect(isUuid('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(true);
    expect(isUuid('3f2504e0-4f89-11d3-9a0c-0305e82c330')).toBe(false);
  });
});

describe('guardReleaseTablesRequest', () => {
  const replicationId = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

  it('accepts a GUID and a list of table refs, keeping only schema and name', () => {
    const message = { replicationId, tables: [{ schema: 'public', name: 'orders', extra: 1 }, { schema: 'Sales "EU"', name: 'lines' }] };
    expect(guardReleaseTablesRequest(message)).toEqual({
      ok: true,
      value: { replicationId, tables: [{ schema: 'public', name: 'orders' }, { schema: 'Sales "EU"', name: 'lines' }] },
    });
  });

  it('accepts an empty list', () => {
    expect(guardReleaseTablesRequest({ replicationId, tables: [] })).toEqual({ ok: true, value: { replicationId, tables: [] } });
  });

  it.each([
    ['no object', null, ['message: must be an object']],
    ['no tables', { replicationId }, ['tables: must be a list']],
    ['tables not a list', { replicationId, tables: { schema: 'a', name: 'b' } }, ['tables: must be a list']],
    ['a bad GUID and a bad table', { replicationId: 'x', tables: [{ schema: 'a', name: 'b' }, { schema: '', name: 'c' }] }, ['replicationId: must be a GUID', 'tables[1].schema: must be a non-empty string']],
    ['a table key instead of a ref', { replicationId, tables: ['[public].[orders]'] }, ['tables[0]: must be an object']],
    ['a name that is not text', { replicationId, tables: [{ schema: 'public', name: 7 }] }, ['tables[0].name: must be a non-empty string']],
  ])('refuses %s', (_case, message, problems) => {
    expect(guardReleaseTablesRequest(message)).toEqual({ ok: false, problems });
  });
});
