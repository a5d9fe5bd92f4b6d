import { ExternalIdIssuer } from '@svc/crypto';
import { ErrorCode, REPLICATION_DEFAULTS, SECRET_MASK, type RpcReply } from '@svc/contracts';
import type { ValidationStore } from '@svc/registry-store';
import {
  InMemoryAlertStore,
  InMemoryReplicationStore,
  InMemoryServiceConfigurationStore,
  InMemoryTableStateStore,
  InMemoryWarehouseClaimStore,
  RecordingLifecycle,
  ScriptedReachabilityProbe,
} from '../testing/in-memory-stores';
import { SAMPLE_PARTS, createRequestTree, parsedRequest, sampleCreateRequest } from '../testing/requests';
import { ReplicationsService } from './replications.service';
import { ServiceControlService } from './service-control.service';
import { warehouseClaimsOf, warehouseIdentity } from '../pipeline/warehouse-claims';

const author = { requestId: '17', accessKeyId: 'SVCTESTKEY00000000000', scope: 'All' as const };
const externalIds = new ExternalIdIssuer(Buffer.alloc(32, 1));
const SECRETS = [SAMPLE_PARTS.secretKey, SAMPLE_PARTS.warehousePassword, 'source-secret-1', 'staging-secret-2'];

function valueOf<T>(reply: RpcReply<T>): T {
  if (!reply.ok) throw new Error(`expected success, got ${reply.error.code}: ${reply.error.messages.join('; ')}`);
  return reply.value;
}

function errorOf<T>(reply: RpcReply<T>): { code: ErrorCode; messages: string[] } {
  if (reply.ok) throw new Error('expected an error reply');
  return reply.error;
}

describe('ReplicationsService', () => {
  let replications: InMemoryReplicationStore;
  let settings: InMemoryServiceConfigurationStore;
  let tables: InMemoryTableStateStore;
  let alerts: InMemoryAlertStore;
  let probe: ScriptedReachabilityProbe;
  let lifecycle: RecordingLifecycle;
  let claims: InMemoryWarehouseClaimStore;
  let service: ReplicationsService;
  /** Each table's last validation, as the validation store answers it. */
  let lastValidations: Awaited<ReturnType<ValidationStore['lastByTable']>>;
  const validations = { lastByTable: async () => lastValidations };

  beforeEach(() => {
    replications = new InMemoryReplicationStore();
    settings = new InMemoryServiceConfigurationStore();
    tables = new InMemoryTableStateStore();
    alerts = new InMemoryAlertStore();
    probe = new ScriptedReachabilityProbe();
    lifecycle = new RecordingLifecycle(replications);
    claims = new InMemoryWarehouseClaimStore(replications);
    lastValidations = new Map();
    service = new ReplicationsService(replications, settings, tables, alerts, probe, lifecycle, claims, externalIds, validations);
  });

  async function created(): Promise<string> {
    const reply = valueOf(await service.create(sampleCreateRequest(), author));
    probe.targets.length = 0;
    return reply.replicationId;
  }

  function alter(tree: Record<string, unknown>): ReturnType<ReplicationsService['alter']> {
    return service.alter(parsedRequest('AlterWarehouseReplication', tree), author);
  }

  describe('create', () => {
    const listed = (schema: string, name: string, keyed = true) => ({ table: { schema, name }, primaryKey: keyed ? ['id'] : [], estimatedRows: 0 });

    it('says when a replication the caller may see already carries the name (issue 40), and stores it all the same', async () => {
      probe.sourceTables = [listed('public', 'orders')];
      const first = valueOf(await service.create(sampleCreateRequest(), author));
      const second = valueOf(await service.create(sampleCreateRequest(), author));
      expect(second.note).toMatch(new RegExp(`^Replication ${first.replicationId} is named '.+' too: set ReplicationName \\(AlterWarehouseReplication\\) to tell them apart\\.$`));
      // A key limited to its own replications is not told of another key's.
      const other = valueOf(await service.create(sampleCreateRequest(), { ...author, accessKeyId: 'SVCOTHER', scope: 'Own' }));
      expect(other.note).toBe('');
    });

    it('checks source, staging and warehouse, then stores the configuration with its defaults', async () => {
      probe.sourceTables = [listed('public', 'orders')];
      const request = sampleCreateRequest();
      const reply = valueOf(await service.create(request, author));

      expect(reply).toEqual({ replicationId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown, status: 'Running', note: '' });
      expect(probe.targets).toEqual([
        {
          source: { connectionString: SAMPLE_PARTS.sourceUrl, encryptDataInTransit: false },
          staging: { connectionString: SAMPLE_PARTS.stagingUrl, encryptDataInTransit: false },
          warehouse: request.warehouse,
        },
      ]);
      const stored = await replications.get(reply.replicationId);
      expect(stored?.status).toBe('Running');
      expect(stored?.config).toMatchObject({
        replicationName: 'sales',
        source: request.source,
        warehouse: { ...request.warehouse, timeoutInMins: 60 },
        dataReplication: true,
        schemaReplication: true,
        changeTrackingBatchLimit: REPLICATION_DEFAULTS.changeTrackingBatchLimit,
        ctProcessTimeoutInMinutes: 30,
        serializedCtProcessTimeoutInMinutes: 30,
        autoSerializedCtProcessTimeoutInMinutes: 30,
        isContinuous: true,
        isLogErrorsOnly: true,
        alertOnSuccessfulTableSchemaChanges: false,
      });
    });

    it('stores nothing and answers every unreachable field when the check fails', async () => {
      const failures = ['{Source\\ConnectionString}: cannot connect: connection refused', '{Warehouse\\BucketName}: cannot write to bucket: access denied'];
      probe.answer = () => failures;
      expect(errorOf(await service.create(sampleCreateRequest(), author))).toEqual({ code: ErrorCode.ValidationFailed, messages: failures });
      expect(replications.rows.size).toBe(0);
    });

    it('readies the staging database after the checks and returns its Note (replicated logins)', async () => {
      const note = 'Random passwords are assigned to replicated logins and users for security; …';
      probe.preparation = { problems: [], note };
      probe.sourceTables = [listed('public', 'orders')];
      const reply = valueOf(await service.create(sampleCreateRequest(), author));
      expect(reply.note).toBe(note);
      expect(probe.preparedTargets).toEqual([
        {
          source: { connectionString: SAMPLE_PARTS.sourceUrl, encryptDataInTransit: false },
          staging: { connectionString: SAMPLE_PARTS.stagingUrl, encryptDataInTransit: false },
          replicateCompatibilityLevel: true,
        },
      ]);
    });

    it('says in its Note how the source’s changes are captured, before the staging database’s words, and asks only about the tracked tables', async () => {
      probe.sourceTables = [listed('public', 'orders'), listed('public', 'audit', false)];
      probe.capture = { problems: [], note: 'Changes are captured by triggers on the source’s tables, because logical decoding is not available.' };
      probe.preparation = { problems: [], note: 'Random passwords are assigned.' };
      const reply = valueOf(await service.create(sampleCreateRequest(), author));
      expect(reply.note).toBe('Changes are captured by triggers on the source’s tables, because logical decoding is not available. Random passwords are assigned.');
      expect(probe.captureChecks).toEqual([[{ schema: 'public', name: 'orders' }]]);
    });

    it('refuses a login that cannot capture the changes, naming the field, and stores nothing', async () => {
      probe.sourceTables = [listed('public', 'orders')];
      probe.capture = { problems: ['the login reader can capture the changes of [public].[orders] neither from the log nor by triggers: make it their owner'], note: '' };
      expect(errorOf(await service.create(sampleCreateRequest(), author)).messages).toEqual([
        '{Source\\ConnectionString}: the login reader can capture the changes of [public].[orders] neither from the log nor by triggers: make it their owner',
      ]);
      expect(replications.rows.size).toBe(0);
    });

    it('says in its Note that a source without tables has none yet, and that later ones are picked up', async () => {
      probe.sourceTables = [];
      const reply = valueOf(await service.create(sampleCreateRequest(), author));
      expect(reply.note).toMatch(/^The source has no tables yet: tables created in it later are found within a minute/);
    });

    it('stores nothing when the staging database cannot be readied (a compatibility level it cannot take)', async () => {
      const problem = '{Staging\\ReplicateCompatibilityLevel}: the source database\'s compatibility level 130 cannot be set on the staging server (SQL Server 2014 takes 100, 110, 120); …';
      probe.preparation = { problems: [problem], note: '' };
      expect(errorOf(await service.create(sampleCreateRequest(), author))).toEqual({ code: ErrorCode.ValidationFailed, messages: [problem] });
      expect(replications.rows.size).toBe(0);
    });

    it('does not ready the staging database of a request that failed its checks', async () => {
      probe.answer = () => ['{Staging\\ConnectionString}: cannot connect: connection refused'];
      await service.create(sampleCreateRequest(), author);
      expect(probe.preparedTargets).toEqual([]);
    });

    it('names the replication "replication" when the source names no database', async () => {
      const request = sampleCreateRequest({ ...SAMPLE_PARTS, sourceUrl: 'postgres://app:pw@db.internal:5432' });
      const { replicationId } = valueOf(await service.create(request, author));
      expect((await replications.get(replicationId))?.config.replicationName).toBe('replication');
    });

    it('answers Running for a new replication (seed §4.1) while Describe shows the stopped service', async () => {
      settings.current.serviceStopped = true;
      const created = valueOf(await service.create(sampleCreateRequest(), author));
      expect(created.status).toBe('Running');
      expect(valueOf(await service.describe(created.replicationId)).status).toBe('Stopped');
    });

    it('refuses a staging database of another engine than the source, storing nothing', async () => {
      const request = sampleCreateRequest({ ...SAMPLE_PARTS, stagingUrl: 'Server=staging.internal,1433;Database=s;User Id=sa;Password=x' });
      expect(errorOf(await service.create(request, author))).toEqual({
        code: ErrorCode.ValidationFailed,
        messages: ["{Staging\\ConnectionString}: the staging database must use the source's engine (PostgreSQL), not SQL Server"],
      });
      expect(replications.rows.size).toBe(0);
    });
  });

  describe('IAMRole: the ExternalId the service issues (confused-deputy protection)', () => {
    const ROLE = { accountId: '123456789012', roleName: 'CustomerBucketRole' };
    const otherKey = { requestId: '18', accessKeyId: 'SVCOTHERKEY0000000000', scope: 'All' as const };

    function iamRoleRequest(): ReturnType<typeof sampleCreateRequest> {
      const tree = createRequestTree();
      const warehouse: Record<string, unknown> = { ...(tree['warehouse'] as Record<string, unknown>), accessType: 'IAMRole', ...ROLE };
      delete warehouse['accessKey'];
      delete warehouse['secretKey'];
      return parsedRequest('CreateWarehouseReplication', { ...tree, warehouse });
    }

    it("issues it at Create for the creating key and role: the probe assumes the role with it, the answer, the stored configuration and Describe show it", async () => {
      const expected = externalIds.issue({ ownerAccessKeyId: author.accessKeyId, ...ROLE });
      const reply = valueOf(await service.create(iamRoleRequest(), author));

      expect(reply.warehouse).toEqual({ externalId: expected });
      expect(probe.targets[0]?.warehouse).toMatchObject({ accessType: 'IAMRole', ...ROLE, externalId: expected });
      expect((await replications.get(reply.replicationId))?.config.warehouse.externalId).toBe(expected);
      expect(valueOf(await service.describe(reply.replicationId)).configuration.warehouse.externalId).toBe(expected);
    });

    it('gives another access key naming the same role another ExternalId', async () => {
      const mine = valueOf(await service.create(iamRoleRequest(), author)).warehouse?.externalId;
      const theirs = valueOf(await service.create(iamRoleRequest(), otherKey)).warehouse?.externalId;
      expect(mine).toMatch(/^svc-[0-9a-f]{32}$/);
      expect(theirs).toMatch(/^svc-[0-9a-f]{32}$/);
      expect(theirs).not.toBe(mine);
    });

    it('refuses a Create the role does not trust, storing nothing, and issues the same ExternalId when it is sent again', async () => {
      const trustMessage = '{Warehouse\\RoleName}: the service cannot assume arn:aws:iam::123456789012:role/CustomerBucketRole (STS: access denied)';
      probe.answer = () => [trustMessage];
      expect(errorOf(await service.create(iamRoleRequest(), author)).messages).toEqual([trustMessage]);
      expect(replications.rows.size).toBe(0);

      probe.answer = () => [];
      const reply = valueOf(await service.create(iamRoleRequest(), author));
      expect(reply.warehouse?.externalId).toMatch(/^svc-[0-9a-f]{32}$/);
      expect(probe.targets.map((target) => target.warehouse?.externalId)).toEqual([reply.warehouse?.externalId, reply.warehouse?.externalId]);
    });

    it('has none for AccessType=AccessKey', async () => {
      const reply = valueOf(await service.create(sampleCreateRequest(), author));
      expect(reply).not.toHaveProperty('warehouse');
      expect((await replications.get(reply.replicationId))?.config.warehouse).not.toHaveProperty('externalId');
    });

    it("issues a new one when an Alter names another role, for the replication's owner and not the altering key", async () => {
      const { replicationId } = valueOf(await service.create(iamRoleRequest(), author));
      valueOf(await service.alter(parsedRequest('AlterWarehouseReplication', { replicationId, warehouse: { roleName: 'NewRole' } }), otherKey));

      const stored = await replications.get(replicationId);
      expect(stored?.config.warehouse.externalId).toBe(externalIds.issue({ ownerAccessKeyId: author.accessKeyId, accountId: ROLE.accountId, roleName: 'NewRole' }));
      expect(probe.targets.at(-1)?.warehouse?.externalId).toBe(stored?.config.warehouse.externalId);
      expect((await replications.history(replicationId)).at(-1)?.changedFields).toEqual(['warehouse.externalId', 'warehouse.roleName']);
    });

    it('keeps the stored one while the role stays, even once the master key it came from was rotated', async () => {
      const { replicationId, warehouse } = valueOf(await service.create(iamRoleRequest(), author));
      expect(warehouse?.externalId).toMatch(/^svc-[0-9a-f]{32}$/);
      const rotated = new ReplicationsService(replications, settings, tables, alerts, probe, lifecycle, claims, new ExternalIdIssuer(Buffer.alloc(32, 2)), validations);
      valueOf(await rotated.alter(parsedRequest('AlterWarehouseReplication', { replicationId, parallelTablesLimit: '3', warehouse: { bucketName: 'other-bucket' } }), author));
      expect((await replications.get(replicationId))?.config.warehouse.externalId).toBe(warehouse?.externalId);
    });

    it('drops it when an Alter switches to AccessKey, and issues one when it switches back', async () => {
      const { replicationId } = valueOf(await service.create(iamRoleRequest(), author));
      const toKeys = { replicationId, warehouse: { accessType: 'AccessKey', accessKey: SAMPLE_PARTS.accessKey, secretKey: SAMPLE_PARTS.secretKey } };
      valueOf(await service.alter(parsedRequest('AlterWarehouseReplication', toKeys), author));
      expect((await replications.get(replicationId))?.config.warehouse).not.toHaveProperty('externalId');

      valueOf(await service.alter(parsedRequest('AlterWarehouseReplication', { replicationId, warehouse: { accessType: 'IAMRole', ...ROLE } }), author));
      expect((await replications.get(replicationId))?.config.warehouse.externalId).toBe(externalIds.issue({ ownerAccessKeyId: author.accessKeyId, ...ROLE }));
    });
  });

  describe('tables that would share a warehouse table (DESIGN §6)', () => {
    const listed = (schema: string, name: string) => ({ table: { schema, name }, primaryKey: ['id'], estimatedRows: 0 });

    it('refuses a Create whose tables would collide, naming them, and stores nothing', async () => {
      probe.sourceTables = [listed('public', 'sales_orders'), listed('sales', 'orders'), listed('public', 'customers')];
      const error = errorOf(await service.create(sampleCreateRequest(), author));
      expect(error).toEqual({
        code: ErrorCode.ValidationFailed,
        messages: [
          '{TablesToInclude}: tables [public].[sales_orders], [sales].[orders] would all be loaded into warehouse table sales_orders: leave all but one of them out',
        ],
      });
      expect(await replications.list()).toEqual([]);
    });

    it('refuses a Create when the source tables cannot be listed', async () => {
      probe.listSourceTables = () => Promise.reject(new Error('permission denied for schema pg_catalog'));
      expect(errorOf(await service.create(sampleCreateRequest(), author)).messages).toEqual(["{Source\\ConnectionString}: cannot list the source's tables"]);
      expect(await replications.list()).toEqual([]);
    });

    it('refuses an Alter of TablesToInclude that would make tables collide, keeping the stored list', async () => {
      probe.sourceTables = [listed('public', 'sales_orders'), listed('sales', 'orders')];
      const request = { ...sampleCreateRequest(), tablesToInclude: ['[sales].[orders]'] };
      const replicationId = valueOf(await service.create(request, author)).replicationId;
      const error = errorOf(await alter({ replicationId, tablesToInclude: '[sales].[orders],[public].[sales_orders]' }));
      expect(error.messages).toEqual([expect.stringContaining('{TablesToInclude}: tables [public].[sales_orders], [sales].[orders]')]);
      expect((await replications.get(replicationId))?.config.tablesToInclude).toEqual(['[sales].[orders]']);
    });

    it('refuses an Alter of a table list while the source cannot be listed, keeping the stored list', async () => {
      const replicationId = await created();
      probe.listSourceTables = () => Promise.reject(new Error('connection refused'));
      expect(errorOf(await alter({ replicationId, tablesToInclude: '[sales].[orders]' })).messages).toEqual([
        "{TablesToInclude}: the source's tables cannot be listed now, so the tables cannot be checked; send the change again when the source answers",
      ]);
      expect((await replications.get(replicationId))?.config.tablesToInclude).toBe('All');
    });

    it('lets an Alter of other settings through while the source cannot be listed', async () => {
      const replicationId = await created();
      probe.listSourceTables = () => Promise.reject(new Error('connection refused'));
      valueOf(await alter({ replicationId, parallelTablesLimit: '3' }));
    });
  });

  describe('two replications never write one warehouse table', () => {
    const listed = (schema: string, name: string) => ({ table: { schema, name }, primaryKey: ['id'], estimatedRows: 0 });
    const other = { requestId: '18', accessKeyId: 'SVCOTHERKEY000000000', scope: 'Own' as const };

    beforeEach(() => {
      probe.sourceTables = [listed('public', 'orders'), listed('public', 'customers'), listed('sales', 'orders')];
    });

    /** A replication whose discovery claimed its tables, as the scheduler does after Create. */
    async function claimedBy(caller: typeof author, tablesToInclude: string[]): Promise<string> {
      const { replicationId } = valueOf(await service.create({ ...sampleCreateRequest(), tablesToInclude }, caller));
      const stored = await replications.get(replicationId);
      const { warehouse } = stored!.config;
      const refused = await claims.claim(replicationId, warehouseIdentity(warehouse), warehouseClaimsOf(warehouse, tablesToInclude.map((tableName) => ({ tableName }))));
      expect(refused).toEqual([]);
      return replicationId;
    }

    it('refuses a Create whose tables another replication writes, naming it and the tables, and stores nothing', async () => {
      const first = await claimedBy(author, ['[public].[orders]', '[public].[customers]']);
      const before = await replications.list();
      const refusal = errorOf(await service.create({ ...sampleCreateRequest(), tablesToInclude: 'All' }, author));
      expect(refusal).toEqual({
        code: ErrorCode.ValidationFailed,
        messages: [
          `{TablesToInclude}: replication ${first} (sales) already writes warehouse tables [public].[customers] → public.customers, ` +
            '[public].[orders] → public.orders; two replications never write one warehouse table: leave these tables out or choose another ' +
            'Warehouse.DatabaseSchema or database',
        ],
      });
      expect(await replications.list()).toEqual(before);
    });

    it('names the other replication only to a key that may see it', async () => {
      await claimedBy(author, ['[public].[orders]']);
      const refusal = errorOf(await service.create({ ...sampleCreateRequest(), tablesToInclude: ['[public].[orders]'] }, other));
      expect(refusal.messages).toEqual([expect.stringMatching(/^\{TablesToInclude\}: another replication, which this access key may not see, already writes warehouse table \[public\]\.\[orders\] → public\.orders;/)]);
      expect(refusal.messages.join()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    });

    it('sees one server behind its loopback names and one table behind folded case', async () => {
      await claimedBy(author, ['[public].[orders]']);
      const request = sampleCreateRequest();
      const elsewhere = { ...request, tablesToInclude: ['[public].[orders]'], warehouse: { ...request.warehouse, databaseSchema: 'PUBLIC' } };
      expect(errorOf(await service.create(elsewhere, author)).messages).toEqual([expect.stringMatching(/already writes warehouse table \[public\]\.\[orders\]/)]);
      expect(warehouseIdentity({ url: 'postgres://localhost:5432/x', databaseName: 'DW', databaseSchema: 's' })).toBe(
        warehouseIdentity({ url: 'postgresql://127.0.0.1/x', databaseName: 'dw', databaseSchema: 'S' }),
      );
    });

    it('accepts the same tables into another schema or database', async () => {
      await claimedBy(author, ['[public].[orders]']);
      const request = sampleCreateRequest();
      valueOf(await service.create({ ...request, tablesToInclude: ['[public].[orders]'], warehouse: { ...request.warehouse, databaseSchema: 'other' } }, author));
      valueOf(await service.create({ ...request, tablesToInclude: ['[public].[orders]'], warehouse: { ...request.warehouse, databaseName: 'dev2' } }, author));
    });

    it('refuses an Alter that moves a replication onto tables another writes, and not one that keeps its own', async () => {
      await claimedBy(author, ['[public].[orders]']);
      const request = sampleCreateRequest();
      const second = await claimedBy(author, ['[public].[customers]']);
      expect(second).toBeDefined();
      const moved = valueOf(await service.create({ ...request, tablesToInclude: ['[public].[orders]'], warehouse: { ...request.warehouse, databaseSchema: 'other' } }, author));
      expect(errorOf(await alter({ replicationId: moved.replicationId, warehouse: { databaseSchema: 'public' } })).messages).toEqual([
        expect.stringMatching(/^\{TablesToInclude\}: replication .* already writes warehouse table \[public\]\.\[orders\] → public\.orders;/),
      ]);
      valueOf(await alter({ replicationId: second, tablesToInclude: '[public].[customers]', parallelTablesLimit: '3' }));
    });
  });

  describe('tables the source does not have (seed §2.1)', () => {
    const listed = (schema: string, name: string, keyed = true) => ({ table: { schema, name }, primaryKey: keyed ? ['id'] : [], estimatedRows: 0 });

    beforeEach(() => {
      probe.sourceTables = [listed('public', 'orders'), listed('public', 'a]b'), listed('public', 'audit', false)];
    });

    it('says every problem at once: a bucket that cannot be written and a table the source does not have (issue 20)', async () => {
      probe.answer = () => ['{Warehouse\\BucketName}: cannot write to bucket: bucket does not exist'];
      const request = { ...sampleCreateRequest(), tablesToInclude: ['[public].[orders]', '[public].[nope]'] };
      expect(errorOf(await service.create(request, author)).messages).toEqual([
        '{Warehouse\\BucketName}: cannot write to bucket: bucket does not exist',
        '{TablesToInclude}: [public].[nope] does not exist in the source',
      ]);
      expect(await replications.list()).toEqual([]);
    });

    it('does not list the tables of a source that cannot be reached', async () => {
      probe.answer = () => ['{Source\\ConnectionString}: cannot reach db.internal:5432 (refused, timed out, unknown host or TLS failed)'];
      probe.listSourceTables = () => Promise.reject(new Error('must not be asked'));
      expect(errorOf(await service.create({ ...sampleCreateRequest(), tablesToInclude: ['[public].[nope]'] }, author)).messages).toEqual([
        '{Source\\ConnectionString}: cannot reach db.internal:5432 (refused, timed out, unknown host or TLS failed)',
      ]);
    });

    it('refuses a Create naming a table the source does not have, and stores nothing', async () => {
      const request = { ...sampleCreateRequest(), tablesToInclude: ['[public].[orders]', '[public].[nope]', '[x].[y]'] };
      expect(errorOf(await service.create(request, author))).toEqual({
        code: ErrorCode.ValidationFailed,
        messages: ['{TablesToInclude}: [public].[nope], [x].[y] do not exist in the source'],
      });
      expect(await replications.list()).toEqual([]);
    });

    it('accepts a table whose name holds a ], written ]] as the grammar says', async () => {
      const replicationId = (await service.create({ ...sampleCreateRequest(), tablesToInclude: ['[public].[a]]b]'] }, author)).ok;
      expect(replicationId).toBe(true);
    });

    it('refuses reseeding lists naming missing tables or tables of the other kind', async () => {
      const replicationId = await created();
      const error = errorOf(
        await alter({
          replicationId,
          tablesToInclude: '[public].[orders]',
          reseedingSchedule: {
            noPkTablesToInclude: '[public].[gone], [public].[orders]',
            pkTablesToInclude: '[public].[audit], [public].[orders], [public].[missing]',
            fromTime: '01:00:00 AM',
            toTime: '02:00:00 AM',
            repeatIntervalInMinutes: '60',
          },
        }),
      );
      expect(error.messages).toEqual([
        '{ReseedingSchedule\\NoPkTablesToInclude}: [public].[gone] does not exist in the source',
        '{ReseedingSchedule\\NoPkTablesToInclude}: [public].[orders] has a primary key: list it in PkTablesToInclude',
        '{ReseedingSchedule\\PkTablesToInclude}: [public].[missing] does not exist in the source',
        '{ReseedingSchedule\\PkTablesToInclude}: [public].[audit] has no primary key: list it in NoPkTablesToInclude',
        '{ReseedingSchedule\\PkTablesToInclude}: [public].[orders] is in TablesToInclude, so it is tracked: PkTablesToInclude is for keyed tables outside it',
      ]);
      expect((await replications.get(replicationId))?.config.reseedingSchedule).toBeUndefined();
    });

    it('checks only the lists an Alter changes', async () => {
      const replicationId = valueOf(await service.create({ ...sampleCreateRequest(), tablesToInclude: ['[public].[orders]'] }, author)).replicationId;
      probe.sourceTables = [listed('public', 'audit', false)];
      valueOf(await alter({ replicationId, parallelTablesLimit: '3' }));
      expect(errorOf(await alter({ replicationId, tablesToInclude: '[public].[audit], [public].[orders]' })).messages).toEqual([
        '{TablesToInclude}: [public].[orders] does not exist in the source',
      ]);
    });
  });

  describe('alter', () => {
    it('answers NotFound for an unknown replication', async () => {
      const id = '0b4a3f4e-5a43-4b55-9a3b-1c2d3e4f5a6b';
      expect(errorOf(await alter({ replicationId: id, parallelTablesLimit: '3' }))).toEqual({
        code: ErrorCode.NotFound,
        messages: [`{ReplicationId}: replication '${id}' does not exist`],
      });
    });

    it('stores a change with a history entry and re-checks nothing that cannot affect reachability', async () => {
      const id = await created();
      valueOf(await alter({ replicationId: id, parallelTablesLimit: '3', warehouse: { scdType: 'Type2', timeoutInMins: 90 } }));
      const stored = await replications.get(id);
      expect(stored).toMatchObject({ version: 2, config: { parallelTablesLimit: 3, warehouse: { scdType: 'Type2', timeoutInMins: 90 } } });
      expect(probe.targets).toEqual([]);
      const history = await replications.history(id);
      expect(history.at(-1)).toMatchObject({
        version: 2,
        requestId: '17',
        changedFields: ['parallelTablesLimit', 'warehouse.scdType', 'warehouse.timeoutInMins'],
      });
    });

    it('re-checks only the changed connection string and stores it when reachable', async () => {
      const id = await created();
      const newSource = 'postgres://app:rotated@db.internal:5432/sales';
      valueOf(await alter({ replicationId: id, sourceConnectionString: newSource }));
      expect(probe.targets).toEqual([{ source: { connectionString: newSource, encryptDataInTransit: false } }]);
      expect((await replications.get(id))?.config.source.connectionString).toBe(newSource);
    });

    it('checks a new source as Create does (its changes must be capturable), refusing under the Alter name and keeping the old configuration', async () => {
      probe.sourceTables = [{ table: { schema: 'public', name: 'orders' }, primaryKey: ['id'], estimatedRows: 0 }];
      const id = await created();
      const before = await replications.get(id);
      probe.capture = { problems: ['binlog_format is MIXED, and changes are read from row events: SET GLOBAL binlog_format = \'ROW\''], note: '' };
      const error = errorOf(await alter({ replicationId: id, sourceConnectionString: 'postgres://app:rotated@db.internal:5432/sales' }));
      expect(error).toEqual({ code: ErrorCode.ValidationFailed, messages: ["{SourceConnectionString}: binlog_format is MIXED, and changes are read from row events: SET GLOBAL binlog_format = 'ROW'"] });
      expect(await replications.get(id)).toEqual(before);
      expect(probe.captureChecks.at(-1)).toEqual([{ schema: 'public', name: 'orders' }]);
    });

    it('refuses an unreachable new connection string under its Alter name and keeps the old configuration', async () => {
      const id = await created();
      const before = await replications.get(id);
      probe.answer = (target) => (target.staging ? ['{Staging\\ConnectionString}: cannot connect: connection refused'] : []);
      const error = errorOf(await alter({ replicationId: id, destinationConnectionString: 'postgres://s:pw@127.0.0.1:1/staging' }));
      expect(error).toEqual({ code: ErrorCode.ValidationFailed, messages: ['{DestinationConnectionString}: cannot connect: connection refused'] });
      expect(await replications.get(id)).toEqual(before);
    });

    it('readies a new staging database, and refuses the Alter under its Alter name when that fails', async () => {
      const id = await created();
      const before = await replications.get(id);
      probe.preparedTargets.length = 0;
      probe.preparation = { problems: ["{Staging\\ConnectionString}: cannot create the source database's SQL logins and users on the staging server: permission denied"], note: '' };
      const error = errorOf(await alter({ replicationId: id, destinationConnectionString: 'postgres://s:pw@127.0.0.1:5432/staging2' }));
      expect(error.messages).toEqual(["{DestinationConnectionString}: cannot create the source database's SQL logins and users on the staging server: permission denied"]);
      expect(probe.preparedTargets.map((target) => target.staging.connectionString)).toEqual(['postgres://s:pw@127.0.0.1:5432/staging2']);
      expect(await replications.get(id)).toEqual(before);
    });

    it('does not ready the staging database again for changes that do not touch it', async () => {
      const id = await created();
      probe.preparedTargets.length = 0;
      valueOf(await alter({ replicationId: id, parallelTablesLimit: '3' }));
      expect(probe.preparedTargets).toEqual([]);
    });

    it('re-checks the warehouse when its bucket or credentials change', async () => {
      const id = await created();
      valueOf(await alter({ replicationId: id, warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'loader' } }));
      expect(probe.targets).toHaveLength(1);
      expect(probe.targets[0]?.warehouse).toMatchObject({ accessType: 'IAMRole', accountId: '123456789012', roleName: 'loader' });
      expect(probe.targets[0]?.warehouse).not.toHaveProperty('secretKey');
    });

    it('refuses a merged configuration that breaks a cross-field rule', async () => {
      const id = await created();
      const error = errorOf(await alter({ replicationId: id, warehouse: { accessType: 'IAMRole' } }));
      expect(error.code).toBe(ErrorCode.ValidationFailed);
      expect(error.messages.join('\n')).toMatch(/\{Warehouse\\(AccountId|RoleName)\}/);
      expect((await replications.get(id))?.version).toBe(1);
    });

    it('refuses an incomplete first reseeding schedule', async () => {
      const id = await created();
      const error = errorOf(await alter({ replicationId: id, reseedingSchedule: { fromTime: '01:00:00 AM' } }));
      expect(error.code).toBe(ErrorCode.ValidationFailed);
      expect(error.messages[0]).toMatch(/^\{ReseedingSchedule\\NoPkTablesToInclude\}: is required/);
    });

    it('turns data replication off and on through the status', async () => {
      const id = await created();
      valueOf(await alter({ replicationId: id, dataReplication: 'false' }));
      expect(await replications.get(id)).toMatchObject({ status: 'Stopped', config: { dataReplication: false } });
      valueOf(await alter({ replicationId: id, dataReplication: 'true' }));
      expect(await replications.get(id)).toMatchObject({ status: 'Running', config: { dataReplication: true } });
    });

    it('restarts a failed replication with DataReplication=true and clears its error', async () => {
      const id = await created();
      await replications.setStatus(id, 'Failed', 'warehouse rejected COPY');
      valueOf(await alter({ replicationId: id, dataReplication: 'true' }));
      expect(await replications.get(id)).toMatchObject({ status: 'Running', lastError: null, version: 1 });
      expect(lifecycle.calls).toContainEqual({ kind: 'resumed', replicationId: id });
    });

    it('hands the changed fields of a stored change to the running job, and nothing when the change is refused', async () => {
      const id = await created();
      valueOf(await alter({ replicationId: id, changeTrackingBatchLimit: '7', warehouse: { scdType: 'Type2' } }));
      expect(lifecycle.calls).toEqual([{ kind: 'altered', replicationId: id, changedFields: ['changeTrackingBatchLimit', 'warehouse.scdType'] }]);
      probe.answer = (target) => (target.source ? ['{Source\\ConnectionString}: cannot connect: password authentication failed'] : []);
      errorOf(await alter({ replicationId: id, sourceConnectionString: 'postgres://u:wrong@h/app' }));
      expect(lifecycle.calls).toHaveLength(1);
    });

    it('refuses to change a replication that is being deleted', async () => {
      const id = await created();
      await replications.setStatus(id, 'Deleting', null);
      expect(errorOf(await alter({ replicationId: id, parallelTablesLimit: '2' })).code).toBe(ErrorCode.Conflict);
    });

    it('answers Conflict when another change was stored in between', async () => {
      const id = await created();
      const racing = replications.update.bind(replications);
      replications.update = async (replicationId, _expected, change, who) => {
        await racing(replicationId, 1, change, who);
        return racing(replicationId, 1, change, who);
      };
      expect(errorOf(await alter({ replicationId: id, parallelTablesLimit: '2' })).code).toBe(ErrorCode.Conflict);
    });

    it('stores nothing when the request changes nothing', async () => {
      const id = await created();
      valueOf(await alter({ replicationId: id, parallelTablesLimit: '10', dataReplication: 'true' }));
      expect((await replications.get(id))?.version).toBe(1);
      expect(await replications.history(id)).toHaveLength(1);
    });
  });

  describe('describe', () => {
    it('shows the configuration with every secret masked, plus status, tables, alerts and last error', async () => {
      const id = await created();
      await replications.setStatus(id, 'Failed', 'connect to postgres://app:source-secret-1@db.internal/sales failed');
      tables.put(id, { name: '[dbo].[orders]', phase: 'Seeding', rowsSeeded: 5, rowsEstimated: 10, lastVersion: null, lagSeconds: null, lastError: null });
      const alert = await alerts.record({ replicationId: id, kind: 'Reseed', message: 'reseeded [dbo].[orders]' });

      const description = valueOf(await service.describe(id));
      expect(description).toMatchObject({
        replicationId: id,
        replicationName: 'sales',
        status: 'Failed',
        tables: [{ name: '[dbo].[orders]', phase: 'Seeding', rowsSeeded: 5 }],
        alerts: [alert],
      });
      expect(description.configuration.source.connectionString).toBe(`postgres://app:${SECRET_MASK}@db.internal:5432/sales`);
      expect(description.configuration.staging.connectionString).toBe(
        `postgres://sa:${SECRET_MASK}@staging.internal:5432/sales_staging`,
      );
      expect(description.configuration.warehouse).toMatchObject({ secretKey: SECRET_MASK, password: SECRET_MASK, accessKey: SAMPLE_PARTS.accessKey });
      expect(description.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
      const text = JSON.stringify(description);
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    });

    it('answers NotFound for an unknown id', async () => {
      expect(errorOf(await service.describe('0b4a3f4e-5a43-4b55-9a3b-1c2d3e4f5a6b')).code).toBe(ErrorCode.NotFound);
    });

    it('shows each table\'s last validation, and none for a table never validated', async () => {
      const id = await created();
      tables.put(id, { name: '[dbo].[orders]', phase: 'Tracking', rowsSeeded: 5, rowsEstimated: 10, lastVersion: '9', lagSeconds: 0, lastError: null });
      tables.put(id, { name: '[dbo].[lines]', phase: 'Tracking', rowsSeeded: 5, rowsEstimated: 10, lastVersion: '9', lagSeconds: 0, lastError: null });
      const endedAt = new Date('2026-11-27T12:00:00.000Z');
      lastValidations = new Map([[id, new Map([['[dbo].[orders]', { validationId: 'v-7', state: 'Mismatched', mismatchedKeys: 3, endedAt }]])]]);
      const described = valueOf(await service.describe(id)).tables;
      expect(described.find((table) => table.name === '[dbo].[orders]')?.lastValidation).toEqual({ validationId: 'v-7', state: 'Mismatched', mismatchedKeys: 3, endedAt: endedAt.toISOString() });
      expect(described.find((table) => table.name === '[dbo].[lines]')).not.toHaveProperty('lastValidation');
    });
  });

  describe('a replication whose tables are in Error (issue 38 item 5)', () => {
    const table = (name: string, phase: 'Tracking' | 'Error') => ({ name, phase, rowsSeeded: 1, rowsEstimated: 1, lastVersion: null, lagSeconds: null, lastError: phase === 'Error' ? 'it failed' : null });

    it('is not Running without qualification: Describe and the list say how many of its tables are in Error', async () => {
      const id = await created();
      tables.put(id, table('[dbo].[orders]', 'Error'));
      tables.put(id, table('[dbo].[lines]', 'Error'));
      const every = 'every table (2) is in Error: nothing is replicated until the causes (each table\'s LastError) are fixed';
      expect(valueOf(await service.describe(id))).toMatchObject({ status: 'Running', tableCount: 2, tablesInError: 2, statusDetail: every });
      expect(valueOf(await service.list()).replications).toEqual([
        { replicationId: id, replicationName: expect.any(String) as unknown, status: 'Running', tableCount: 2, tablesInError: 2, statusDetail: every },
      ]);
      tables.put(id, table('[dbo].[lines]', 'Tracking'));
      expect(valueOf(await service.describe(id)).statusDetail).toBe("1 of 2 tables are in Error (each table's LastError says why); the others are replicated");
      tables.put(id, table('[dbo].[orders]', 'Tracking'));
      const healthy = valueOf(await service.describe(id));
      expect(healthy).toMatchObject({ tableCount: 2, tablesInError: 0 });
      expect(healthy.statusDetail).toBeUndefined();
    });
  });

  describe('list, delete and start', () => {
    it('lists every replication with its reported status', async () => {
      const running = await created();
      const stopped = await created();
      valueOf(await alter({ replicationId: stopped, dataReplication: 'false', replicationName: 'paused' }));
      const { replications: listed } = valueOf(await service.list());
      expect(listed).toEqual(
        expect.arrayContaining([
          { replicationId: running, replicationName: 'sales', status: 'Running', tableCount: 0, tablesInError: 0 },
          {
            replicationId: stopped,
            replicationName: 'paused',
            status: 'Stopped',
            stoppedReason: 'DataReplication is false (StopReplication or AlterWarehouseReplication): StartReplication with its ReplicationId resumes it',
            tableCount: 0,
            tablesInError: 0,
          },
        ]),
      );
      settings.current.serviceStopped = true;
      const listed2 = valueOf(await service.list()).replications;
      expect(listed2.map((item) => item.status)).toEqual(['Stopped', 'Stopped']);
      expect(listed2.find((item) => item.replicationId === running)?.stoppedReason).toBe(
        'the replication service is stopped (StopReplicationService): StartReplication without a ReplicationId resumes it',
      );
    });

    it('tells a stopped service, DataReplication off and a failure apart in Describe, each with the call that resumes it', async () => {
      const id = await created();
      expect(valueOf(await service.describe(id)).stoppedReason).toBeUndefined();
      await replications.setStatus(id, 'Failed', 'boom');
      expect(valueOf(await service.describe(id)).stoppedReason).toMatch(/^it failed \(LastError says why\): StartReplication with its ReplicationId/);
      settings.current.serviceStopped = true;
      expect(valueOf(await service.describe(id)).stoppedReason).toMatch(/LastError.*; the replication service is stopped \(StopReplicationService\)/);
    });

    it('refuses to start one replication while the service is stopped (a Conflict), changing nothing', async () => {
      const id = await created();
      valueOf(await alter({ replicationId: id, dataReplication: 'false' }));
      settings.current.serviceStopped = true;
      const refused = errorOf(await service.start(id, author));
      expect(refused.code).toBe(ErrorCode.Conflict);
      expect(refused.messages).toEqual([expect.stringContaining('the replication service is stopped (StopReplicationService)')]);
      expect(refused.messages[0]).toContain('call StartReplication without a ReplicationId');
      expect(await replications.get(id)).toMatchObject({ status: 'Stopped', config: { dataReplication: false } });
      expect(lifecycle.calls.filter((call) => call.kind === 'resumed')).toEqual([]);
    });

    it('stops one replication (DataReplication off) and leaves the others running', async () => {
      const stopped = await created();
      const other = await created();
      expect(valueOf(await service.stop(stopped, author))).toBeNull();
      expect(await replications.get(stopped)).toMatchObject({ status: 'Stopped', config: { dataReplication: false } });
      const described = valueOf(await service.describe(stopped));
      expect(described.status).toBe('Stopped');
      expect(described.stoppedReason).toContain('DataReplication is false');
      expect(valueOf(await service.describe(other)).status).toBe('Running');
      // Stopping again changes nothing; StartReplication brings it back.
      expect(valueOf(await service.stop(stopped, author))).toBeNull();
      valueOf(await service.start(stopped, author));
      expect(await replications.get(stopped)).toMatchObject({ status: 'Running', config: { dataReplication: true } });
      expect(errorOf(await service.stop('0b4a3f4e-5a43-4b55-9a3b-1c2d3e4f5a6b', author)).code).toBe(ErrorCode.NotFound);
    });

    it('deletes a replication; it is then unknown', async () => {
      const id = await created();
      expect(valueOf(await service.delete(id))).toBeNull();
      expect(lifecycle.calls).toEqual([{ kind: 'remove', replicationId: id }]);
      expect(errorOf(await service.describe(id)).code).toBe(ErrorCode.NotFound);
      expect(errorOf(await service.delete(id)).code).toBe(ErrorCode.NotFound);
    });

    it('keeps a replication Deleting, with the reason and without secrets, while its source cannot be cleaned', async () => {
      const id = await created();
      lifecycle.failRemovalWith = new Error('connect ECONNREFUSED postgres://u:source-secret-1@h/app');
      expect(valueOf(await service.delete(id))).toBeNull();
      const described = valueOf(await service.describe(id));
      expect(described.status).toBe('Deleting');
      expect(described.lastError).toMatch(/could not remove change tracking from the source yet/);
      expect(described.lastError).not.toContain('source-secret-1');
      expect(errorOf(await alter({ replicationId: id, parallelTablesLimit: '2' })).code).toBe(ErrorCode.Conflict);
    });

    it('starts a stopped replication by turning DataReplication on', async () => {
      const id = await created();
      valueOf(await alter({ replicationId: id, dataReplication: 'false' }));
      valueOf(await service.start(id, author));
      expect(await replications.get(id)).toMatchObject({ status: 'Running', version: 3, config: { dataReplication: true } });
    });

    it('starts a failed replication and clears the failure', async () => {
      const id = await created();
      await replications.setStatus(id, 'Failed', 'boom');
      valueOf(await service.start(id, author));
      expect(await replications.get(id)).toMatchObject({ status: 'Running', lastError: null });
      expect(lifecycle.calls).toEqual([{ kind: 'resumed', replicationId: id }]);
      expect(errorOf(await service.start('0b4a3f4e-5a43-4b55-9a3b-1c2d3e4f5a6b', author)).code).toBe(ErrorCode.NotFound);
    });
  });
});

describe('ServiceControlService', () => {
  let settings: InMemoryServiceConfigurationStore;
  let control: ServiceControlService;

  beforeEach(() => {
    settings = new InMemoryServiceConfigurationStore();
    control = new ServiceControlService(settings);
  });

  it('stops and starts the service', async () => {
    valueOf(await control.stopService());
    expect(settings.current.serviceStopped).toBe(true);
    valueOf(await control.startService());
    expect(settings.current.serviceStopped).toBe(false);
  });

  it('stores the configuration fields that were given', async () => {
    valueOf(await control.alterConfiguration({ parallelDatabaseReplicationsLimit: 4 }));
    valueOf(await control.alterConfiguration({ serializeReplications: true }));
    expect(settings.current).toEqual({ serviceStopped: false, serializeReplications: true, parallelDatabaseReplicationsLimit: 4 });
  });

  it.each([0, -1, 1.5])('refuses ParallelDatabaseReplicationsLimit %s', async (limit) => {
    expect(errorOf(await control.alterConfiguration({ parallelDatabaseReplicationsLimit: limit }))).toEqual({
      code: ErrorCode.ValidationFailed,
      messages: ['{ParallelDatabaseReplicationsLimit}: must be a whole number of at least 1'],
    });
    expect(settings.current.parallelDatabaseReplicationsLimit).toBe(0);
  });
});
