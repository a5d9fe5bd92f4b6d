import { Portable, type BatchDescriptor, type TableDefinition } from '@svc/contracts';
import { clientBoundMs, isClientQueryTimeout, type WarehouseTableOptions } from '@svc/engines';
import { startMutePostgresServer, waitUntil } from '@svc/testing';
import { CopyFailedError, s3CopyLoader } from './file-loaders';
import { createRedshiftWarehouse, redshiftWarehouseOnPool } from './redshift-warehouse';
import { RedshiftSessionDouble } from './testing/redshift-session-double';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';
import type { Pool } from 'pg';

const items: TableDefinition = {
  table: { schema: 'public', name: 'items' },
  columns: [
    { name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false },
    { name: 'price', sourceType: 'numeric(12,2)', portableType: Portable.decimal(12, 2), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};
const batch: BatchDescriptor = { batchId: 'items:changes:1:2', replicationId: 'r1', epoch: 1, definition: items, body: { kind: 'changes', fromVersion: '1', toVersion: '2' } };
const where: WarehouseTableOptions = { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false };
const files = { bucket: 'loads', manifestKey: 'r1/items/batch_7/manifest.json', partKeys: ['r1/items/batch_7/part-00000.csv.gz'] };
const noReader = { readPart: () => Promise.reject(new Error('COPY reads S3 itself')) };

describe('a COPY Redshift refuses', () => {
  it('is explained from SYS_LOAD_ERROR_DETAIL of its session and files after the rollback, without the value', async () => {
    // SYS_LOAD_ERROR_DETAIL's error_message quotes the rejected value, as STL_LOAD_ERRORS's err_reason does
    // ("Invalid digit, Value 'O', Pos 0, Type: Integer", https://docs.aws.amazon.com/redshift/latest/dg/r_Load_Error_Reference.html).
    const session = new RedshiftSessionDouble(4711, {
      message: "Load into table 'svc_sys_load_rows' failed. Check 'sys_load_error_detail' system table for details.",
      logged: {
        file_name: `s3://loads/r1/items/batch_7/part-00000.csv.gz`.padEnd(256),
        line_number: 2,
        column_name: 'price'.padEnd(127),
        column_type: 'numeric'.padEnd(10),
        error_code: 1207,
        error_message: "Invalid digit, Value 'card-4111', Pos 0, Type: Decimal".padEnd(512),
      },
    });
    // Another session's failed COPY of other files: not this load's.
    session.loadErrors.push({ query_id: 1, session_id: 99, file_name: 's3://loads/r2/other/part-00000.csv.gz', line_number: 9, column_name: 'x', column_type: 'int4', error_code: 1214, error_message: 'Delimiter not found' });
    const warehouse = redshiftWarehouseOnPool(session.asPool(), s3CopyLoader({ accessType: 'IAMRole', accountId: '123456789012', roleName: 'loader' }, 'eu-west-1'), 'redshift', TEST_BARE_NAME_SCHEMAS);

    const failure = await warehouse.loadBatch(batch, files, noReader, where).then(
      () => null,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(CopyFailedError);
    const message = (failure as CopyFailedError).message;
    expect(message).toContain("Load into table 'svc_sys_load_rows' failed");
    expect(message).toContain('sys_load_error_detail: line 2, column price (numeric): error 1207 Invalid digit');
    expect(message).not.toContain('card-4111');
    expect(message).not.toContain('Delimiter not found');
    // Read after the ROLLBACK (the failed COPY aborted the transaction), on the same session.
    const rollback = session.sent.lastIndexOf('ROLLBACK');
    expect(rollback).toBeGreaterThan(-1);
    expect(session.sent.slice(rollback + 1).some((text) => /sys_load_error_detail/i.test(text))).toBe(true);
  });
});

describe('a Redshift that stops answering in a transaction', () => {
  it('fails the work within one client bound, without waiting a second bound for a ROLLBACK, and drops the session', async () => {
    // Startup and SET answered, then silence: a connection a network element dropped. A ROLLBACK would be queued
    // behind the statement that got no answer (node-postgres answers one query at a time) and time out in its turn.
    const server = await startMutePostgresServer();
    const statementTimeoutMs = 500;
    const warehouse = createRedshiftWarehouse(
      { url: `redshift://127.0.0.1:${server.port}`, databaseName: 'dev', username: 'loader', password: 'secret' },
      { statementTimeoutMs, bareNameSchemas: TEST_BARE_NAME_SCHEMAS, fileLoader: s3CopyLoader({ accessType: 'IAMRole', accountId: '123456789012', roleName: 'loader' }, 'eu-west-1'), tls: false, maxConnections: 1 },
    );
    try {
      const started = Date.now();
      const failure = await warehouse.ensureTable(items, where).then(
        () => null,
        (error: unknown) => error,
      );
      const elapsed = Date.now() - started;
      expect(isClientQueryTimeout(failure)).toBe(true);
      expect(elapsed).toBeLessThan(clientBoundMs(statementTimeoutMs) * 1.6);
      await waitUntil(() => Promise.resolve(server.openConnections() === 0), 3_000, 'the session to be closed');
    } finally {
      await warehouse.close();
      await server.stop();
    }
  }, 15_000);
});

describe('two loaders making one new schema at once', () => {
  // The slower one's CREATE fails once the faster one committed; the step runs again and finds everything made.
  // Redshift's words for it under SERIALIZABLE and SNAPSHOT isolation alike: "ERROR:1023 DETAIL: Serializable isolation
  // violation on table in Redshift" (https://docs.aws.amazon.com/redshift/latest/dg/c_serial_isolation-serializable-isolation-troubleshooting.html),
  // psql's rendering of the message 1023 with the words as DETAIL. AWS documents no other wording for snapshot isolation;
  // PostgreSQL's own is "could not serialize access due to concurrent update"
  // (https://www.postgresql.org/docs/current/transaction-iso.html#XACT-REPEATABLE-READ).
  it.each([
    ['error 1023, its words in DETAIL', Object.assign(new Error('1023'), { code: 'XX000', detail: 'Serializable isolation violation on table - 4711, transactions forming the cycle are: 1, 2 (pid:42)' })],
    ["PostgreSQL's words for a snapshot write conflict, as an internal error", Object.assign(new Error('could not serialize access due to concurrent update'), { code: 'XX000' })],
  ])('runs the creation again after %s', async (_name, conflict) => {
    const session = new RedshiftSessionDouble(4711, { message: 'no COPY here', logged: { file_name: '', line_number: 0, column_name: '', column_type: '', error_code: 0, error_message: '' } });
    const pool = session.asPool();
    let raced = false;
    const racing = {
      ...pool,
      connect: async () => {
        const client = await pool.connect();
        const query = (text: string | { text: string }, values?: unknown[]) => {
          if (!raced && typeof text === 'string' && text.startsWith('CREATE SCHEMA')) {
            raced = true;
            return Promise.reject(conflict);
          }
          return client.query(text, values);
        };
        return Object.assign({}, client, { query });
      },
    } as unknown as Pool;
    const warehouse = redshiftWarehouseOnPool(racing, s3CopyLoader({ accessType: 'IAMRole', accountId: '123456789012', roleName: 'loader' }, 'eu-west-1'), 'redshift', TEST_BARE_NAME_SCHEMAS);

    await expect(warehouse.hasLoaded('b1', where)).resolves.toBe(false);
    expect(raced).toBe(true);
    expect(session.sent.filter((text) => /^CREATE SCHEMA/.test(text))).toHaveLength(1);
  });
});
