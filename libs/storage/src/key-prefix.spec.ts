import { batchKeyPrefix, folderKey, joinKey, replicationPrefix } from './key-prefix';

describe('replicationPrefix', () => {
  const id = '6f1c2a9e-0b5d-4c3e-9a7f-2d8e4b1c0a55';

  it.each([
    ['/replication/data', `replication/data/${id}/`],
    ['replication/data/', `replication/data/${id}/`],
    ['//a//b//', `a/b/${id}/`],
    [' /folder ', `folder/${id}/`],
    ['/', `${id}/`],
    ['', `${id}/`],
  ])('%j → %s', (folder, prefix) => {
    expect(replicationPrefix(folder, id)).toBe(prefix);
  });
});

describe('folderKey / joinKey', () => {
  it('joins a name under a folder, or at the root', () => {
    expect(joinKey(folderKey('/x/y/'), 'f')).toBe('x/y/f');
    expect(joinKey(folderKey('/'), 'f')).toBe('f');
  });
});

describe('batchKeyPrefix', () => {
  const id = '6f1c2a9e-0b5d-4c3e-9a7f-2d8e4b1c0a55';

  it('is <folder>/<replicationId>/<schema>.<table>/<batchId>/', () => {
    expect(batchKeyPrefix('/replication/data/', id, { schema: 'dbo', name: 'Orders' }, 'b-1')).toBe(`replication/data/${id}/dbo.Orders/b-1/`);
    expect(batchKeyPrefix('', id, { schema: 'public', name: 'my table' }, 'b-2')).toBe(`${id}/public.my table/b-2/`);
  });

  it('keeps a slash inside a name from adding a folder level', () => {
    expect(batchKeyPrefix('f', id, { schema: 'a/b', name: '100%' }, 'x/y')).toBe(`f/${id}/a%2Fb.100%25/x%2Fy/`);
  });
});
