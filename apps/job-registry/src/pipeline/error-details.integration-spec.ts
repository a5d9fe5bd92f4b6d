import { randomBytes, randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Client } from 'pg';
import { ERROR_DETAILS_PERMISSION, failureText, type ReplicationDescription, type WorkFailed } from '@svc/contracts';
import { AccessKeyRepository, PipelineStateRepository, ReplicationRepository } from '@svc/registry-store';
import { TEST_WORKER_KEY, reserveTempDatabase, sampleReplicationConfig, signedCallFor, startTestNats, type TempDatabase, type TestNats } from '@svc/testing';
import { readRegistryConfig } from '../config/registry-config';
import { createRegistryApp } from '../registry-app';
import { OperationDispatcher } from '../replications/operation-dispatcher';
import { PipelineEventsService } from './pipeline-events.service';

/**
 * Issue 19: Describe's lastError is the classified reason a worker reported; what the server said (it may carry row
 * values, or an attacker's server's words) is stored apart and shown as LastErrorDetail only to keys allowed
 * DescribeReplicationErrorDetails (or `*`), redacted of credentials. The server texts here come from a real PostgreSQL.
 */
describe('error details in Describe, by permission', () => {
  let nats: TestNats;
  let control: TempDatabase;
  let app: INestMicroservice;
  let dispatcher: OperationDispatcher;
  let replicationId = '';
  let valueError = '';
  let duplicateError = '';
  const table = '[public].[users]';
  const keys = { plain: 'SVCERRPLAIN0000001', details: 'SVCERRDETAIL000001', everything: 'SVCERRSTAR00000001' };
  const secretOf = (accessKeyId: string) => `${accessKeyId.toLowerCase()}-error-details-secret`;

  async function describeAs(accessKeyId: string): Promise<ReplicationDescription> {
    const payload = { replicationId };
    const signed = signedCallFor('DescribeWarehouseReplication', JSON.stringify(payload), { accessKeyId, secretKey: secretOf(accessKeyId) });
    const reply = await dispatcher.handle({ requestId: randomUUID(), operation: 'DescribeWarehouseReplication', payload, signed });
    if (!reply.ok) throw new Error(reply.error.messages.join('; '));
    return reply.value as ReplicationDescription;
  }

  /** The text a real PostgreSQL gives for `sql`, DETAIL included (as a worker keeps it). */
  async function postgresErrorText(client: Client, sql: string, params: unknown[] = []): Promise<string> {
    const error = await client.query(sql, params).then(
      () => new Error(`expected ${sql} to fail`),
      (failure: unknown) => failure as Error & { detail?: string },
    );
    return 'detail' in error && typeof error.detail === 'string' ? `${error.message} (${error.detail})` : error.message;
  }

  beforeAll(async () => {
    nats = await startTestNats();
    control = reserveTempDatabase('svc_error_details_it');
    const config = readRegistryConfig({
      DATABASE_URL: control.url,
      NATS_URL: nats.url,
      SVC_MASTER_KEY: randomBytes(32).toString('hex'),
      SVC_WORKER_KEY: TEST_WORKER_KEY,
      ALLOW_LOOPBACK_TARGETS: 'true',
      SCHEDULER_ENABLED: 'false',
      LOG_LEVEL: 'error',
    });
    app = await createRegistryApp(config, { logSink: () => undefined });
    dispatcher = app.get(OperationDispatcher);
    const accessKeys = app.get(AccessKeyRepository);
    for (const [accessKeyId, allowedOperations] of [
      [keys.plain, ['DescribeWarehouseReplication']],
      [keys.details, ['DescribeWarehouseReplication', ERROR_DETAILS_PERMISSION]],
      [keys.everything, ['*']],
    ] as const) {
      await accessKeys.create({ accessKeyId, secretKey: secretOf(accessKeyId), allowedOperations: [...allowedOperations], replicationScope: 'All', description: 'error details test' });
    }
    const stored = await app.get(ReplicationRepository).insert({ status: 'Running', config: sampleReplicationConfig({ replicationName: 'errors' }) }, { requestId: 'it', accessKeyId: keys.everything });
    replicationId = stored.replicationId;
    await app.get(PipelineStateRepository).registerTables(replicationId, stored.version, [{ tableName: table, tracked: true, rowsEstimated: 1 }]);

    const client = new Client({ connectionString: control.url });
    await client.connect();
    try {
      await client.query('CREATE TEMPORARY TABLE users (id int PRIMARY KEY, email text UNIQUE)');
      await client.query(`INSERT INTO users VALUES (1, 'alice@example.com')`);
      valueError = await postgresErrorText(client, 'INSERT INTO users (id) VALUES ($1)', ['secret-value']);
      duplicateError = await postgresErrorText(client, `INSERT INTO users VALUES (2, 'alice@example.com')`);
    } finally {
      await client.end();
    }
  });

  afterAll(async () => {
    await app?.close();
    await Promise.all([nats?.stop(), control?.drop()]);
  });

  /** A unit of work of the table fails as a worker reports it: the classified reason, and what the server said. */
  async function workFails(detail: string, scope: 'table' | 'replication'): Promise<void> {
    const workId = randomUUID();
    const state = app.get(PipelineStateRepository);
    // A table in Error (the previous test's) gets work only once retried, as StartReplication does.
    await state.resumeTables(replicationId, new Date());
    expect(await state.claim(replicationId, table, workId, 'seed', new Date())).not.toBeNull();
    const event: WorkFailed = {
      workId,
      replicationId,
      table: { schema: 'public', name: 'users' },
      stage: 'load',
      retryable: false,
      message: failureText(scope === 'table' ? 'data-error' : 'authentication-failed', { endpoint: 'Warehouse', object: table }),
      detail,
      scope,
      failedAt: new Date().toISOString(),
    };
    await app.get(PipelineEventsService).workFailed(event);
  }

  it('shows a key without the permission the classified reason only, and a key with it what PostgreSQL said', async () => {
    expect(valueError).toContain('secret-value');
    await workFails(valueError, 'table');

    const plain = await describeAs(keys.plain);
    expect(plain.tables).toEqual([expect.objectContaining({ name: table, phase: 'Error', lastError: failureText('data-error', { endpoint: 'Warehouse', object: table }) })]);
    expect(JSON.stringify(plain)).not.toContain('secret-value');
    expect(plain.tables[0]).not.toHaveProperty('lastErrorDetail');

    for (const allowed of [keys.details, keys.everything]) {
      const described = await describeAs(allowed);
      expect(described.tables[0]).toMatchObject({ lastError: plain.tables[0]?.lastError, lastErrorDetail: valueError });
    }
  });

  it('keeps a duplicate key value out of the replication lastError and its alerts, and redacts credentials from the detail', async () => {
    expect(duplicateError).toContain('alice@example.com');
    const withCredentials = `${duplicateError}; connecting to postgres://loader:hunter2-pw@dw.example.com/dw`;
    await workFails(withCredentials, 'replication');

    const plain = await describeAs(keys.plain);
    expect(plain.status).toBe('Failed');
    expect(plain.lastError).toContain(failureText('authentication-failed', { endpoint: 'Warehouse' }));
    expect(JSON.stringify(plain)).not.toContain('alice@example.com');
    expect(plain).not.toHaveProperty('lastErrorDetail');

    const detailed = await describeAs(keys.details);
    expect(detailed.lastErrorDetail).toContain('Key (email)=(alice@example.com) already exists');
    expect(detailed.tables[0]?.lastErrorDetail).toContain('alice@example.com');
    expect(JSON.stringify(detailed)).not.toContain('hunter2-pw');
  });
});
