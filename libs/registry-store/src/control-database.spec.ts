import type { Pool, PoolClient } from 'pg';
import { inTransaction, quoteIdentifier } from './control-database';

/** A pooled client that records its statements and how it was released; ROLLBACK fails when told to. */
function recordingPool(options: { rollbackFails?: boolean } = {}) {
  const statements: string[] = [];
  const released: Array<Error | boolean | undefined> = [];
  const client = {
    query: async (sql: string) => {
      statements.push(sql);
      if (sql === 'ROLLBACK' && options.rollbackFails) throw new Error('Connection terminated');
      return { rows: [] };
    },
    release: (error?: Error | boolean) => released.push(error),
  };
  const pool = { connect: async () => client as unknown as PoolClient } as unknown as Pool;
  return { pool, statements, released };
}

describe('inTransaction', () => {
  it('commits the work and returns the client to the pool', async () => {
    const { pool, statements, released } = recordingPool();
    await expect(inTransaction(pool, async (client) => (await client.query('SELECT 1'), 'done'))).resolves.toBe('done');
    expect(statements).toEqual(['BEGIN', 'SELECT 1', 'COMMIT']);
    expect(released).toEqual([undefined]);
  });

  it('rolls back work that throws, rethrows its error and returns the client', async () => {
    const { pool, statements, released } = recordingPool();
    await expect(inTransaction(pool, async () => Promise.reject(new Error('conflict')))).rejects.toThrow('conflict');
    expect(statements).toEqual(['BEGIN', 'ROLLBACK']);
    expect(released).toEqual([undefined]);
  });

  it('discards a client whose rollback failed, and still rethrows the work error', async () => {
    const { pool, released } = recordingPool({ rollbackFails: true });
    await expect(inTransaction(pool, async () => Promise.reject(new Error('conflict')))).rejects.toThrow('conflict');
    expect(released).toHaveLength(1);
    expect(released[0]).toBeInstanceOf(Error);
  });
});

describe('quoteIdentifier', () => {
  it('quotes any name, doubling its double quotes', () => {
    expect(quoteIdentifier('svc_registry')).toBe('"svc_registry"');
    expect(quoteIdentifier('a"b; DROP')).toBe('"a""b; DROP"');
  });
});
