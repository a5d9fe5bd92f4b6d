import { ExternalIdIssuer } from '@svc/crypto';
import {
  ErrorCode,
  rpcOk,
  type DescribeValidationRequest,
  type ListAlertTargetsResponse,
  type OperationName,
  type PutAlertTargetRequest,
  type RpcReply,
  type RepairValidationRequest,
  type RepairValidationResponse,
  type StartValidationRequest,
  type StartValidationResponse,
  type ValidationDescription,
} from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { signedCallFor } from '@svc/testing';
import {
  InMemoryAccessKeyStore,
  InMemoryAlertStore,
  InMemoryMetricsHistoryStore,
  InMemoryReplicationStore,
  InMemoryServiceConfigurationStore,
  InMemoryTableStateStore,
  InMemoryWarehouseClaimStore,
  RecordingLifecycle,
  ScriptedReachabilityProbe,
} from '../testing/in-memory-stores';
import { SAMPLE_PARTS, createRequestTree } from '../testing/requests';
import { AccessKeyOperations } from '../access-keys/access-key-operations.service';
import { AccessKeysService } from '../access-keys/access-keys.service';
import { CredentialGenerator } from '../access-keys/credential-generator';
import { SignatureVerifier } from '../access-keys/signature-verifier';
import { OperationDispatcher } from './operation-dispatcher';
import { ReplicationMetricsService } from './replication-metrics.service';
import { ReplicationsService, type OperationCaller } from './replications.service';
import { ServiceControlService } from './service-control.service';
import { ValidationOperations } from './validation-operations';

const VALIDATION_ID = '9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c';

/** Records what the dispatcher hands over and answers as a validation service would. */
/** Records the alert target operations the dispatcher hands over. */
class RecordingAlertTargets {
  readonly calls: string[] = [];

  put(request: PutAlertTargetRequest): Promise<RpcReply<null>> {
    this.calls.push(`put ${request.name}`);
    return Promise.resolve(rpcOk(null));
  }

  list(): Promise<RpcReply<ListAlertTargetsResponse>> {
    this.calls.push('list');
    return Promise.resolve(rpcOk({ alertTargets: [] }));
  }

  delete(name: string): Promise<RpcReply<null>> {
    this.calls.push(`delete ${name}`);
    return Promise.resolve(rpcOk(null));
  }
}

class RecordingValidations extends ValidationOperations {
  readonly started: Array<{ request: StartValidationRequest; caller: OperationCaller }> = [];
  readonly described: DescribeValidationRequest[] = [];

  start(request: StartValidationRequest, caller: OperationCaller): Promise<RpcReply<StartValidationResponse>> {
    this.started.push({ request, caller });
    return Promise.resolve(rpcOk({ replicationId: request.replicationId, validationId: VALIDATION_ID }));
  }

  describe(request: DescribeValidationRequest): Promise<RpcReply<ValidationDescription>> {
    this.described.push(request);
    return Promise.resolve(
      rpcOk({ replicationId: request.replicationId, validationId: request.validationId ?? VALIDATION_ID, requestedAt: '2026-12-01T10:00:00.000Z', scheduled: false, tables: [] }),
    );
  }

  readonly repaired: Array<{ request: RepairValidationRequest; caller: OperationCaller }> = [];

  repair(request: RepairValidationRequest, caller: OperationCaller): Promise<RpcReply<RepairValidationResponse>> {
    this.repaired.push({ request, caller });
    return Promise.resolve(rpcOk({ replicationId: request.replicationId, validationId: request.validationId, tables: request.tablesToInclude ?? ['[dbo].[Orders]'] }));
  }
}

describe('OperationDispatcher', () => {
  let replications: InMemoryReplicationStore;
  let settings: InMemoryServiceConfigurationStore;
  let logLines: Record<string, unknown>[];
  let dispatcher: OperationDispatcher;
  let tableStates: InMemoryTableStateStore;
  let history: InMemoryMetricsHistoryStore;
  let keys: InMemoryAccessKeyStore;
  let validations: RecordingValidations;
  let alertTargets: RecordingAlertTargets;

  beforeEach(() => {
    replications = new InMemoryReplicationStore();
    settings = new InMemoryServiceConfigurationStore();
    logLines = [];
    const logger = new JsonLogger('job-registry', 'debug', (line) => logLines.push(JSON.parse(line) as Record<string, unknown>));
    tableStates = new InMemoryTableStateStore();
    history = new InMemoryMetricsHistoryStore();
    const service = new ReplicationsService(
      replications,
      settings,
      tableStates,
      new InMemoryAlertStore(),
      new ScriptedReachabilityProbe(),
      new RecordingLifecycle(replications),
      new InMemoryWarehouseClaimStore(replications),
      new ExternalIdIssuer(Buffer.alloc(32, 1)),
      { lastByTable: async () => new Map() },
    );
    keys = new InMemoryAccessKeyStore();
    void keys.create({ accessKeyId: 'SVCTESTKEY00000000000', secretKey: 's', allowedOperations: ['*'], replicationScope: 'All', description: '' });
    const accessKeys = new AccessKeyOperations(new AccessKeysService(keys, new CredentialGenerator(), { bootstrapAccessKey: null }, logger), keys);
    validations = new RecordingValidations();
    alertTargets = new RecordingAlertTargets();
    dispatcher = new OperationDispatcher(
        service,
        new ServiceControlService(settings),
        new ReplicationMetricsService(replications, tableStates, history),
        logger,
        keys,
        replications,
        accessKeys,
        validations,
        new SignatureVerifier(keys, { region: 'us-east-1', maxClockSkewMs: 900_000 }, logger),
        alertTargets,
      );
  });

  /** An operation message as the gateway sends it: signed by `accessKeyId` (every key here has the secret 's'). */
  function envelope(operation: string, payload: unknown, accessKeyId = 'SVCTESTKEY00000000000', requestId = '42'): Record<string, unknown> {
    return { requestId, operation, payload, signed: signedCallFor(operation as OperationName, JSON.stringify(payload), { accessKeyId, secretKey: 's' }) };
  }

  it.each([
    ['a string', 'hello', ['message: must be an object']],
    ['null', null, ['message: must be an object']],
    [
      'an empty object',
      {},
      ['requestId: must be a non-empty string', 'operation: must name a known operation', 'payload: must be an object', 'signed: must be an object'],
    ],
    ['an unknown operation', { ...envelope('ListWarehouseReplications', {}), operation: 'DropEverything' }, ['operation: must name a known operation']],
    ['a payload that is a list', { ...envelope('ListWarehouseReplications', {}), payload: [] }, ['payload: must be an object']],
    ['an access key id instead of a signature', { requestId: '1', accessKeyId: 'SVCTESTKEY00000000000', operation: 'ListWarehouseReplications', payload: {} }, ['signed: must be an object']],
  ])('refuses %s as a malformed envelope', async (_label, message, problems) => {
    expect(await dispatcher.handle(message)).toEqual({ ok: false, error: { code: ErrorCode.ValidationFailed, messages: problems } });
  });

  it('acts for no key whose signature the message does not carry: whoever sends on the bus (issue 36 item 10)', async () => {
    const forged = { ...envelope('CreateWarehouseReplication', createRequestTree()), signed: signedCallFor('CreateWarehouseReplication', '{}', { accessKeyId: 'SVCTESTKEY00000000000', secretKey: 'guessed' }) };
    expect(await dispatcher.handle(forged)).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden } });
    const otherOperation = { ...envelope('ListWarehouseReplications', {}), operation: 'StopReplicationService' };
    expect(await dispatcher.handle(otherOperation)).toEqual({
      ok: false,
      error: { code: ErrorCode.Forbidden, messages: ['the signed request is not a call of StopReplicationService'] },
    });
    expect(await replications.list()).toEqual([]);
    expect(await settings.get()).toMatchObject({ serviceStopped: false });
  });

  it('re-validates the payload and reports every field problem', async () => {
    const tree = createRequestTree();
    const reply = await dispatcher.handle(envelope('CreateWarehouseReplication', { ...tree, parallelTablesLimit: 'many', unexpected: 1 }));
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe(ErrorCode.ValidationFailed);
    expect(reply.error.messages.some((message) => message.startsWith('{ParallelTablesLimit}'))).toBe(true);
    expect(reply.error.messages.some((message) => message.startsWith('{Unexpected}'))).toBe(true);
    expect(replications.rows.size).toBe(0);
  });

  it('refuses a Describe without a GUID', async () => {
    const reply = await dispatcher.handle(envelope('DescribeWarehouseReplication', { replicationId: 'x' }));
    expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.ValidationFailed } });
  });

  it('routes operations and logs each with its request id and replication id', async () => {
    const created = await dispatcher.handle(envelope('CreateWarehouseReplication', createRequestTree()));
    expect(created).toMatchObject({ ok: true, value: { status: 'Running' } });
    const replicationId = created.ok ? (created.value as { replicationId: string }).replicationId : '';

    expect(await dispatcher.handle(envelope('StopReplicationService', {}))).toEqual({ ok: true, value: null });
    expect(settings.current.serviceStopped).toBe(true);
    expect(await dispatcher.handle(envelope('StartReplication', {}))).toEqual({ ok: true, value: null });
    expect(settings.current.serviceStopped).toBe(false);
    expect(await dispatcher.handle(envelope('AlterConfiguration', { parallelDatabaseReplicationsLimit: '2' }))).toEqual({ ok: true, value: null });
    expect(await dispatcher.handle(envelope('PutAlertTarget', { name: 'ops', type: 'Sns', topicArn: 'arn:aws:sns:us-east-1:123456789012:alerts' }))).toEqual({ ok: true, value: null });
    expect(await dispatcher.handle(envelope('DeleteAlertTarget', { name: 'ops' }))).toEqual({ ok: true, value: null });
    expect(alertTargets.calls).toEqual(['put ops', 'delete ops']);
    expect(settings.current.parallelDatabaseReplicationsLimit).toBe(2);

    const handled = logLines.filter((line) => line['msg'] === 'operation handled');
    expect(handled[0]).toMatchObject({ operation: 'CreateWarehouseReplication', requestId: '42', replicationId, outcome: 'ok' });
    expect(handled).toHaveLength(6);
    const text = JSON.stringify(logLines);
    for (const secret of [SAMPLE_PARTS.secretKey, SAMPLE_PARTS.warehousePassword, 'source-secret-1', 'staging-secret-2']) expect(text).not.toContain(secret);
  });

  describe('GetReplicationMetrics', () => {
    async function createdId(): Promise<string> {
      const created = await dispatcher.handle(envelope('CreateWarehouseReplication', createRequestTree()));
      return created.ok ? (created.value as { replicationId: string }).replicationId : '';
    }

    it('answers the history of every table over the last hour by default', async () => {
      const replicationId = await createdId();
      history.answer = [{ name: '[dbo].[Orders]', points: [{ at: '2026-11-25T10:00:00.000Z', cycles: 2, rowsApplied: 7, lagSeconds: 1.5, maxLagSeconds: 2, avgCycleMs: 300, maxCycleMs: 400 }] }];
      const reply = await dispatcher.handle(envelope('GetReplicationMetrics', { replicationId }));
      expect(reply).toEqual({ ok: true, value: { replicationId, sinceMinutes: 60, stepMinutes: 1, tables: history.answer } });
      expect(history.queries[0]).toMatchObject({ replicationId, tableName: undefined, stepMinutes: 1 });
    });

    it('narrows to one table named as Describe names it, and refuses a table the replication does not have', async () => {
      const replicationId = await createdId();
      tableStates.put(replicationId, { name: '[dbo].[Orders]', phase: 'Tracking', rowsSeeded: 0, rowsEstimated: 0, lastVersion: null, lagSeconds: null, lastError: null, lastCycleAt: null });
      expect(await dispatcher.handle(envelope('GetReplicationMetrics', { replicationId, tableName: ' [dbo].[Orders] ', sinceMinutes: '600' }))).toMatchObject({ ok: true });
      expect(history.queries[0]).toMatchObject({ tableName: '[dbo].[Orders]', stepMinutes: 1 });
      expect(await dispatcher.handle(envelope('GetReplicationMetrics', { replicationId, tableName: '[dbo].[Missing]' }))).toEqual({
        ok: false,
        error: { code: ErrorCode.NotFound, messages: [`{TableName}: table '[dbo].[Missing]' is not part of replication '${replicationId}'`] },
      });
      expect(await dispatcher.handle(envelope('GetReplicationMetrics', { replicationId, tableName: 'Orders' }))).toMatchObject({
        ok: false,
        error: { code: ErrorCode.ValidationFailed, messages: ['{TableName}: must be one table named as Describe names it, e.g. [dbo].[Orders]'] },
      });
    });

    it.each([
      [{ sinceMinutes: '0' }, '{SinceMinutes}'],
      [{ sinceMinutes: '10081' }, '{SinceMinutes}'],
      [{ sinceMinutes: '10080', stepMinutes: '5' }, '{StepMinutes}'],
      [{ stepMinutes: 'often' }, '{StepMinutes}'],
    ])('refuses %j naming the field', async (fields, field) => {
      const replicationId = await createdId();
      const reply = await dispatcher.handle(envelope('GetReplicationMetrics', { replicationId, ...fields }));
      expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.ValidationFailed } });
      if (!reply.ok) expect(reply.error.messages[0]?.startsWith(field)).toBe(true);
      expect(history.queries).toHaveLength(0);
    });

    it('answers NotFound for an unknown replication', async () => {
      const reply = await dispatcher.handle(envelope('GetReplicationMetrics', { replicationId: '0b4a3f4e-5a43-4b55-9a3b-1c2d3e4f5a6b' }));
      expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.NotFound } });
    });
  });

  describe('StartReplicationValidation and DescribeReplicationValidation', () => {
    const replicationId = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

    it('hands the canonical request and the caller to the validation service and answers what it answers', async () => {
      const started = await dispatcher.handle(envelope('StartReplicationValidation', { replicationId: replicationId.toUpperCase(), tablesToInclude: ' [dbo].[Orders] ,[sales].[Order Lines]' }));
      expect(started).toEqual({ ok: true, value: { replicationId, validationId: VALIDATION_ID } });
      expect(validations.started).toEqual([
        {
          request: { replicationId, tablesToInclude: ['[dbo].[Orders]', '[sales].[Order Lines]'] },
          caller: { requestId: '42', accessKeyId: 'SVCTESTKEY00000000000', scope: 'All' },
        },
      ]);

      await dispatcher.handle(envelope('StartReplicationValidation', { replicationId, tablesToInclude: 'all' }));
      expect(validations.started[1]?.request).toEqual({ replicationId });

      const described = await dispatcher.handle(envelope('DescribeReplicationValidation', { replicationId, validationId: `{${VALIDATION_ID.toUpperCase()}}` }));
      expect(described).toMatchObject({ ok: true, value: { replicationId, validationId: VALIDATION_ID, tables: [] } });
      await dispatcher.handle(envelope('DescribeReplicationValidation', { replicationId }));
      expect(validations.described).toEqual([{ replicationId, validationId: VALIDATION_ID }, { replicationId }]);
    });

    it.each([
      ['StartReplicationValidation', {}, '{ReplicationId}: is required'],
      ['StartReplicationValidation', { replicationId, tablesToInclude: 'dbo.Orders' }, "{TablesToInclude}: invalid value 'dbo.Orders': entry 1 ('dbo.Orders') must be written [schema].[table]. Write All or a comma-separated list of [schema].[table]"],
      ['StartReplicationValidation', { replicationId, tablesToInclude: ['[dbo].[Orders]', '[dbo].[Orders]'] }, '{TablesToInclude}: lists [dbo].[Orders] more than once'],
      ['DescribeReplicationValidation', { validationId: VALIDATION_ID }, '{ReplicationId}: is required'],
      ['DescribeReplicationValidation', { replicationId, validationId: 'latest' }, "{ValidationId}: invalid value 'latest'. A ValidationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
      ['DescribeReplicationValidation', { replicationId, tablesToInclude: '[dbo].[Orders]' }, '{TablesToInclude}: unknown field'],
    ])('%s re-validates %j and refuses it by field without calling the service', async (operation, payload, message) => {
      expect(await dispatcher.handle(envelope(operation, payload))).toEqual({ ok: false, error: { code: ErrorCode.ValidationFailed, messages: [message] } });
      expect(validations.started).toEqual([]);
      expect(validations.described).toEqual([]);
    });
  });

  describe('RepairReplication', () => {
    const replicationId = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

    it('hands the canonical request and the caller to the validation service and answers what it answers', async () => {
      const repaired = await dispatcher.handle(
        envelope('RepairReplication', { replicationId: replicationId.toUpperCase(), validationId: `{${VALIDATION_ID.toUpperCase()}}`, tablesToInclude: ' [dbo].[Orders] ,[sales].[Order Lines]' }),
      );
      expect(repaired).toEqual({ ok: true, value: { replicationId, validationId: VALIDATION_ID, tables: ['[dbo].[Orders]', '[sales].[Order Lines]'] } });
      expect(validations.repaired).toEqual([
        {
          request: { replicationId, validationId: VALIDATION_ID, tablesToInclude: ['[dbo].[Orders]', '[sales].[Order Lines]'] },
          caller: { requestId: '42', accessKeyId: 'SVCTESTKEY00000000000', scope: 'All' },
        },
      ]);

      // All, like no TablesToInclude: every Mismatched table of the validation.
      await dispatcher.handle(envelope('RepairReplication', { replicationId, validationId: VALIDATION_ID, tablesToInclude: 'All' }));
      await dispatcher.handle(envelope('RepairReplication', { replicationId, validationId: VALIDATION_ID }));
      expect(validations.repaired.slice(1).map(({ request }) => request)).toEqual([
        { replicationId, validationId: VALIDATION_ID },
        { replicationId, validationId: VALIDATION_ID },
      ]);
    });

    it.each([
      [{ validationId: VALIDATION_ID }, '{ReplicationId}: is required'],
      [{ replicationId }, '{ValidationId}: is required'],
      [{ replicationId, validationId: 'latest' }, "{ValidationId}: invalid value 'latest'. A ValidationId is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301"],
      [
        { replicationId, validationId: VALIDATION_ID, tablesToInclude: 'dbo.Orders' },
        "{TablesToInclude}: invalid value 'dbo.Orders': entry 1 ('dbo.Orders') must be written [schema].[table]. Write All or a comma-separated list of [schema].[table]",
      ],
      [{ replicationId, validationId: VALIDATION_ID, tablesToInclude: ['[dbo].[Orders]', '[dbo].[Orders]'] }, '{TablesToInclude}: lists [dbo].[Orders] more than once'],
      [{ replicationId, validationId: VALIDATION_ID, sinceMinutes: '5' }, '{SinceMinutes}: unknown field'],
    ])('re-validates %j and refuses it by field without calling the service', async (payload, message) => {
      expect(await dispatcher.handle(envelope('RepairReplication', payload))).toEqual({ ok: false, error: { code: ErrorCode.ValidationFailed, messages: [message] } });
      expect(validations.repaired).toEqual([]);
    });
  });

  it('answers an unexpected exception with a generic Internal error and logs it with the request id', async () => {
    replications.list = () => Promise.reject(new Error('relation "replications" does not exist at postgres://svc:db-pw-9@h/x'));
    const reply = await dispatcher.handle(envelope('ListWarehouseReplications', {}));
    expect(reply).toEqual({ ok: false, error: { code: ErrorCode.Internal, messages: ['internal error'] } });
    const failure = logLines.find((line) => line['msg'] === 'request failed');
    expect(failure).toMatchObject({ level: 'error', requestId: '42', operation: 'ListWarehouseReplications', outcome: ErrorCode.Internal });
    expect(JSON.stringify(logLines)).not.toContain('db-pw-9');
  });

  it('answers Unavailable when the control database cannot be reached', async () => {
    replications.get = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    const message = envelope('DescribeWarehouseReplication', { replicationId: '0b4a3f4e-5a43-4b55-9a3b-1c2d3e4f5a6b' }, undefined, '43');
    expect(await dispatcher.handle(message)).toEqual({
      ok: false,
      error: { code: ErrorCode.Unavailable, messages: ['the registry database is not available; try again later'] },
    });
  });

  describe('a key acts only on the replications it may (issue 19)', () => {
    const OWN_A = 'SVCOWNKEYA0000000000';
    const OWN_B = 'SVCOWNKEYB0000000000';
    const as = (accessKeyId: string, operation: string, payload: unknown) => dispatcher.handle(envelope(operation, payload, accessKeyId, '7'));

    beforeEach(async () => {
      for (const accessKeyId of [OWN_A, OWN_B]) await keys.create({ accessKeyId, secretKey: 's', allowedOperations: ['*'], replicationScope: 'Own', description: '' });
    });

    it("answers another key's replication exactly as one that does not exist, for every operation naming one", async () => {
      const created = await as(OWN_A, 'CreateWarehouseReplication', createRequestTree());
      if (!created.ok) throw new Error(JSON.stringify(created));
      const id = (created.value as { replicationId: string }).replicationId;
      const limitBefore = replications.rows.get(id)?.config.parallelTablesLimit;
      const absent = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
      for (const [operation, payload] of [
        ['DescribeWarehouseReplication', { replicationId: id }],
        ['AlterWarehouseReplication', { replicationId: id, parallelTablesLimit: '2' }],
        ['DeleteWarehouseReplication', { replicationId: id }],
        ['StartReplication', { replicationId: id }],
        ['GetReplicationMetrics', { replicationId: id }],
        ['StartReplicationValidation', { replicationId: id }],
        ['DescribeReplicationValidation', { replicationId: id }],
        ['RepairReplication', { replicationId: id, validationId: VALIDATION_ID }],
      ] as const) {
        const refused = await as(OWN_B, operation, payload);
        const missing = await as(OWN_B, operation, { ...payload, replicationId: absent });
        expect({ operation, refused: JSON.stringify(refused).replace(id, 'ID') }).toEqual({ operation, refused: JSON.stringify(missing).replace(absent, 'ID') });
        expect(refused).toMatchObject({ ok: false, error: { code: ErrorCode.NotFound } });
      }
      expect(await as(OWN_A, 'DescribeWarehouseReplication', { replicationId: id })).toMatchObject({ ok: true });
      expect(await as('SVCTESTKEY00000000000', 'DescribeWarehouseReplication', { replicationId: id })).toMatchObject({ ok: true });
      // Refused means untouched: the Alter changed nothing and the Delete left it in place.
      expect(replications.rows.get(id)?.config.parallelTablesLimit).toBe(limitBefore);
      expect(replications.rows.get(id)?.status).toBe('Running');
      expect(validations.started).toEqual([]);
      expect(validations.described).toEqual([]);
      expect(validations.repaired).toEqual([]);
      // Its own key validates and repairs it, as itself.
      expect(await as(OWN_A, 'StartReplicationValidation', { replicationId: id })).toMatchObject({ ok: true });
      expect(await as(OWN_A, 'DescribeReplicationValidation', { replicationId: id })).toMatchObject({ ok: true });
      expect(await as(OWN_A, 'RepairReplication', { replicationId: id, validationId: VALIDATION_ID })).toMatchObject({ ok: true });
      expect(validations.started.map(({ caller }) => caller)).toEqual([{ requestId: '7', accessKeyId: OWN_A, scope: 'Own' }]);
      expect(validations.repaired.map(({ caller }) => caller)).toEqual([{ requestId: '7', accessKeyId: OWN_A, scope: 'Own' }]);
    });

    it('lists only what a key may see', async () => {
      const mine = await as(OWN_A, 'CreateWarehouseReplication', createRequestTree());
      await as(OWN_B, 'CreateWarehouseReplication', createRequestTree({ ...SAMPLE_PARTS, warehouseSchema: 'other' } as never));
      const listOf = async (key: string) => {
        const reply = await as(key, 'ListWarehouseReplications', {});
        return reply.ok ? (reply.value as { replications: { replicationId: string }[] }).replications.map((row) => row.replicationId) : reply;
      };
      expect(await listOf(OWN_A)).toEqual([(mine as { value: { replicationId: string } }).value.replicationId]);
      expect(await listOf('SVCTESTKEY00000000000')).toHaveLength(2);
    });

    it('keeps the operations on every replication to keys allowed every replication', async () => {
      for (const [operation, payload] of [
        ['StopReplicationService', {}],
        ['StartReplication', {}],
        ['AlterConfiguration', { serializeReplications: 'true' }],
        ['PutAlertTarget', { name: 'ops', type: 'Webhook', url: 'https://hooks.example.com/x', signingSecret: 'a-signing-secret-of-enough-length' }],
        ['ListAlertTargets', {}],
        ['DeleteAlertTarget', { name: 'ops' }],
      ] as const) {
        const refused = await as(OWN_A, operation, payload);
        expect(refused).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden, messages: [expect.stringContaining('needs a key allowed every replication') as unknown] } });
      }
      expect((await settings.get()).serviceStopped).toBe(false);
      expect(alertTargets.calls).toEqual([]);
    });

    it('refuses a key that no longer exists', async () => {
      expect(await as('SVCGONE000000000000', 'ListWarehouseReplications', {})).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden } });
    });
  });
});
