import { guardReplicationIdMessage, isUuid } from './guards';

describe('guardReplicationIdMessage', () => {
  it('accepts a GUID in any case', () => {
    expect(guardReplicationIdMessage({ replicationId: '3F2504E0-4F89-11D3-9A0C-0305E82C3301' })).toEqual({
      ok: true,
      value: { replicationId: '3F2504E0-4F89-11D3-9A0C-0305E82C3301' },
    });
  });

  it.each([[null], [{}], [{ replicationId: 7 }], [{ replicationId: 'not-a-guid' }], ['3f2504e0-4f89-11d3-9a0c-0305e82c3301']])('refuses %p', (message) => {
    expect(guardReplicationIdMessage(message)).toEqual({ ok: false, problems: ['replicationId: must be a GUID'] });
  });

  it('tells a UUID from other text', () => {
    expect(isUuid('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(true);
    expect(isUuid('3f2504e0-4f89-11d3-9a0c-0305e82c330')).toBe(false);
  });
});
