import { createTempDatabase, TEST_POSTGRES_URL, type TempDatabase } from '@svc/testing';
import { Client, type Pool } from 'pg';
import { createPool } from './pool';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Ends a server session the way DROP DATABASE … WITH (FORCE) or a server restart does. */
async function terminate(pid: number): Promise<void> {
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

/** A dead connection's 'error' event without a listener is an uncaught exception: the process would exit. */
function watchUncaught(): { errors: Error[]; stop: () => void } {
  const errors: Error[] = [];
  const record = (error: Error) => errors.push(error);
  process.on('uncaughtException', record);
  return { errors, stop: () => process.off('uncaughtException', record) };
}

describe('createPool: connections that die under it', () => {
  let database: TempDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTempDatabase('svc_pool_spec');
  });

  beforeEach(() => {
    pool = createPool({ connectionString: database.url, max: 2 }, { owner: 'Source', waitMs: 5_000, sizeSetting: '' });
  });

  afterEach(async () => {
    await pool.end();
  });

  afterAll(async () => {
    await database.drop();
  });

  it('a checked-out connection killed between queries fails its next query, is discarded, and the pool goes on', async () => {
    const uncaught = watchUncaught();
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await terminate(rows[0].pid);
      await sleep(300);

      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      const after = await pool.query<{ one: number }>('SELECT 1 AS one');
      expect(after.rows).toEqual([{ one: 1 }]);
      expect(uncaught.errors).toEqual([]);
    } finally {
      uncaught.stop();
    }
  });

  it('an idle pooled connection killed is replaced at the next checkout', async () => {
    const uncaught = watchUncaught();
    try {
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await terminate(rows[0].pid);
      await sleep(300);

      const after = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(after.rows[0].pid).not.toBe(rows[0].pid);
      expect(uncaught.errors).toEqual([]);
    } finally {
      uncaught.stop();
    }
  });
});
