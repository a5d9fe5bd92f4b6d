import { folderKey, joinKey, replicationPrefix } from './key-prefix';

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
