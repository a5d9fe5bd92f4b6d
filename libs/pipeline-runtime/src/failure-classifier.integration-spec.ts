import { Client } from 'pg';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { classifyFailure } from './failure-classifier';

/**
 * Issue 19: a server's words may carry row values. Errors raised by a real PostgreSQL are worded by their class;
 * what PostgreSQL said (values included, credentials redacted) is kept only as the detail.
 */
describe('classifyFailure of real PostgreSQL errors', () => {
  let database: TempDatabase;
  let client: Client;
  const subject = { endpoint: 'Warehouse', table: '[public].[users]' } as const;

  async function failureOf(sql: string, params: unknown[] = []): Promise<unknown> {
    return client.query(sql, params).then(
      () => {
        throw new Error(`expected ${sql} to fail`);
      },
      (error: unknown) => error,
    );
  }

  beforeAll(async () => {
    database = await createTempDatabase('svc_classify_it');
    client = new Client({ connectionString: database.url });
    await client.connect();
    await client.query('CREATE TABLE users (id int PRIMARY KEY, email text UNIQUE)');
    await client.query(`INSERT INTO users VALUES (1, 'alice@example.com')`);
  });

  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  it('leaves a value PostgreSQL could not convert out of the reason', async () => {
    const error = await failureOf('INSERT INTO users (id) VALUES ($1)', ['secret-value']);
    expect((error as Error).message).toContain('secret-value');
    const verdict = classifyFailure(error, subject);
    expect(verdict).toEqual({
      retryable: false,
      scope: 'table',
      reason: 'Warehouse: a value does not fit its column or breaks a constraint in [public].[users] (values are not shown)',
      detail: 'invalid input syntax for type integer: "secret-value"',
    });
  });

  it('leaves a duplicate key out of the reason and keeps PostgreSQL\'s DETAIL in the detail', async () => {
    const verdict = classifyFailure(await failureOf(`INSERT INTO users VALUES (2, 'alice@example.com')`), subject);
    expect(verdict.reason).toBe('Warehouse: a value does not fit its column or breaks a constraint in [public].[users] (values are not shown)');
    expect(verdict.reason).not.toContain('alice');
    expect(verdict.detail).toContain('Key (email)=(alice@example.com) already exists');
  });

  it('redacts credentials out of the detail', async () => {
    const verdict = classifyFailure(await failureOf('SELECT $1::int', ['postgres://app:hunter2-secret@db.example.com/sales']), subject);
    expect(verdict.reason).not.toContain('db.example.com');
    expect(verdict.detail).toContain('invalid input syntax for type integer');
    expect(verdict.detail).not.toContain('hunter2-secret');
  });

  it('names the object the service worked on, not what the server said, for a missing table', async () => {
    const verdict = classifyFailure(await failureOf('SELECT * FROM no_such_table_of_the_server'), subject);
    expect(verdict.reason).toBe('Warehouse: [public].[users] (or its schema or one of its columns) does not exist');
    expect(verdict.detail).toContain('no_such_table_of_the_server');
  });
});
