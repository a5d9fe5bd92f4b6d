import { Client } from 'pg';
import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { WAREHOUSE_PASSWORD, pgUrl } from './fixtures';
import { alterReplication, describeReplication } from './replication-api';

const ROLE = { accountId: '123456789012', roleName: 'CustomerPipelineRole', bucketName: 'iam-role-pipeline' };
const ROLE_ARN = 'arn:aws:iam::123456789012:role/CustomerPipelineRole';

async function query<T extends Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * An IAMRole replication end to end: the registry's probe and every pipeline worker (separate processes) reach the
 * bucket as the customer's role, assumed through the stack's STS double (which answers as
 * https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html documents and refuses an ExternalId the
 * role's trust policy does not name, https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html).
 */
describe('IAMRole replication through the pipeline (real processes, NATS, PostgreSQL, S3, STS double)', () => {
  const stack = new TestStack({ workers: ['extractor', 'stager', 'loader'], env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100' } });
  let externalId = '';
  let replicationId = '';

  beforeAll(async () => {
    await stack.start();
    externalId = await stack.prepareIamRole(ROLE);
    await query(stack.source.url, 'create table public.orders (id int primary key, note text); insert into public.orders values (1, \'one\'), (2, \'two\')');
  }, 120_000);

  afterAll(() => stack.stop(), 60_000);

  it('seeds and tracks changes with batch files written and read as the assumed role', async () => {
    const body = {
      parallelTablesLimit: 2,
      rebuildIndexes: false,
      source: { connectionString: pgUrl(stack.source.name), encryptDataInTransit: false, changeTrackingRetentionPeriod: '2 Days' },
      staging: { connectionString: pgUrl(stack.staging.name), encryptDataInTransit: false, replicateCompatibilityLevel: false },
      warehouse: {
        accessType: 'IAMRole',
        accountId: ROLE.accountId,
        roleName: ROLE.roleName,
        bucketName: ROLE.bucketName,
        bucketFolderName: '/dw',
        regionEndpoint: 'us-east-1',
        retentionDays: 2,
        url: 'postgres://127.0.0.1:5432',
        databaseSchema: 'dw',
        databaseName: stack.warehouse.name,
        username: 'postgres',
        password: WAREHOUSE_PASSWORD,
        scdType: 'Type1',
      },
      addUpdateTimestamp: false,
      tablesToInclude: 'All',
    };
    const created = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect(created.status).toBe(200);
    ({ replicationId } = JSON.parse(created.body) as { replicationId: string });
    expect((JSON.parse(created.body) as { warehouse: { externalId: string } }).warehouse.externalId).toBe(externalId);

    const warehouseRows = () => query<{ id: number }>(stack.warehouse.url, 'select id from dw.orders order by id').catch(() => []);
    await waitUntil(async () => (await warehouseRows()).length === 2, 90_000, 'the seed in the warehouse');
    await query(stack.source.url, "insert into public.orders values (3, 'three')");
    await waitUntil(async () => (await warehouseRows()).length === 3, 90_000, 'the change in the warehouse');

    // The probe (registry) and the workers that touch the bucket (stager writes, loader reads) each assumed the
    // role with the replication's ExternalId in their own process; nothing was refused.
    const assumed = stack.sts.calls.filter((call) => call.action === 'AssumeRole');
    expect(assumed.length).toBeGreaterThanOrEqual(3);
    for (const call of assumed) {
      expect(call).toMatchObject({ roleArn: ROLE_ARN, externalId, callerAccessKeyId: stack.s3.accessKeyId, roleSessionName: `svc-${externalId}`, status: 200 });
    }
  }, 240_000);

  it('refuses an Alter to a role that does not trust the ExternalId issued for it, keeping the stored role', async () => {
    const renamed = 'CustomerPipelineRole2';
    stack.sts.trustRole({ roleArn: `arn:aws:iam::123456789012:role/${renamed}`, principalAccessKeyId: stack.s3.accessKeyId, externalId: 'svc-not-yours' });
    const altered = await alterReplication(stack, replicationId, { warehouse: { roleName: renamed } });
    expect(altered.status).toBe(400);
    const [message = ''] = (JSON.parse(altered.body) as { errors: string[] }).errors;
    expect(message).toMatch(/^\{Warehouse\\RoleName\}: the service cannot assume arn:aws:iam::123456789012:role\/CustomerPipelineRole2 \(STS: access denied\)/);
    expect(message).toMatch(/sts:ExternalId "svc-[0-9a-f]{32}"/);
    expect(message).not.toContain(externalId);
    expect((await describeReplication(stack, replicationId)).configuration).toMatchObject({ warehouse: { roleName: ROLE.roleName, externalId } });
  }, 60_000);
});
