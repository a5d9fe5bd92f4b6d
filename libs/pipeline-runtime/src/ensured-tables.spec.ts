import type { TableEnsured } from '@svc/engines';
import { ENSURED_TABLE_TTL_MS, EnsuredTables } from './ensured-tables';

describe('EnsuredTables: ensureTable once per table, definition and options', () => {
  let clock = 0;
  let calls = 0;
  const created: TableEnsured = { created: true, addedColumns: [] };
  const ensure = async (): Promise<TableEnsured> => {
    calls += 1;
    return created;
  };
  let there = true;
  const stillThere = async () => there;

  beforeEach(() => {
    clock = 1_000;
    calls = 0;
    there = true;
  });

  it('answers "nothing changed" for a key ensured before, and ensures again for another key', async () => {
    const tables = new EnsuredTables(() => clock);
    const key = EnsuredTables.keyOf('db', { table: 'orders', columns: ['id'] }, 'Type1');
    expect(await tables.ensure(key, ensure, stillThere)).toBe(created);
    expect(await tables.ensure(key, ensure, stillThere)).toEqual({ created: false, addedColumns: [] });
    expect(calls).toBe(1);
    // A column more is another definition: ensured (and its column added) at once.
    expect(await tables.ensure(EnsuredTables.keyOf('db', { table: 'orders', columns: ['id', 'note'] }, 'Type1'), ensure, stillThere)).toBe(created);
    expect(calls).toBe(2);
  });

  it('ensures again after a failed batch of the table, and after the time to live', async () => {
    const tables = new EnsuredTables(() => clock);
    const key = EnsuredTables.keyOf('db', 'orders');
    await tables.ensure(key, ensure, stillThere);
    tables.failed(key);
    await tables.ensure(key, ensure, stillThere);
    expect(calls).toBe(2);
    clock += ENSURED_TABLE_TTL_MS - 1;
    await tables.ensure(key, ensure, stillThere);
    expect(calls).toBe(2);
    clock += 1;
    await tables.ensure(key, ensure, stillThere);
    expect(calls).toBe(3);
  });

  it('ensures again a table no longer there (its database recreated): the step then finds it lost', async () => {
    const tables = new EnsuredTables(() => clock);
    const key = EnsuredTables.keyOf('db', 'orders');
    await tables.ensure(key, ensure, stillThere);
    there = false;
    expect(await tables.ensure(key, ensure, stillThere)).toBe(created);
    expect(calls).toBe(2);
  });

  it('remembers nothing of an ensureTable that failed', async () => {
    const tables = new EnsuredTables(() => clock);
    const key = EnsuredTables.keyOf('db', 'orders');
    await expect(tables.ensure(key, () => Promise.reject(new Error('refused')), stillThere)).rejects.toThrow('refused');
    await tables.ensure(key, ensure, stillThere);
    expect(calls).toBe(1);
  });
});
