import type { PipelinePayloadOf, PipelineSubject } from '../subjects';
import { Portable } from './portable-type';
import type { BatchDescriptor } from './batch';
import {
  PIPELINE_PAYLOAD_GUARDS,
  guardBatchExtracted,
  guardBatchLoaded,
  guardBatchStaged,
  guardExtractRequested,
  guardWorkCancelled,
  guardWorkFailed,
  guardWorkProgress,
  isExtractRequested,
  isExtractWork,
  isPipelinePayload,
  pipelinePayloadProblems,
} from './guards';
import type { BatchExtracted, BatchLoaded, BatchStaged, BatchStagingApplied, ExtractRequested, WorkCancelled, WorkFailed, WorkProgress } from './messages';

const table = { schema: 'public', name: 'orders' };

function changeBatch(): BatchDescriptor {
  return {
    batchId: 'b-1',
    replicationId: 'r-1',
    epoch: 7,
    definition: {
      table,
      columns: [
        { name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false },
        { name: 'mood', sourceType: 'mood', portableType: Portable.text(), nullable: true },
      ],
      primaryKey: ['id'],
      estimatedRows: -1,
    },
    body: { kind: 'changes', fromVersion: '100', toVersion: '120' },
  };
}

const valid: { [S in PipelineSubject]: () => PipelinePayloadOf<S> } = {
  'svc.pipeline.v1.extract.validate': () => ({
    workId: 'w-2',
    validationId: 'v-1',
    replicationId: 'r-1',
    table,
    configVersion: 3,
    requestedAt: '2024-05-01T10:00:00.000Z',
  }),
  'svc.pipeline.v1.extract.requested': (): ExtractRequested => ({
    workId: 'w-1',
    replicationId: 'r-1',
    table,
    kind: 'changes',
    track: true,
    fromVersion: '100',
    batchLimit: 500000,
    epoch: 7,
    requestedAt: '2024-05-01T10:00:00.000Z',
  }),
  'svc.pipeline.v1.batch.extracted': (): BatchExtracted => ({
    workId: 'w-1',
    batch: changeBatch(),
    rowsSubject: 'svc.pipeline.v1.rows.abc123',
    chunkCount: 3,
    rowCount: 10,
    extractedAt: '2024-05-01T10:00:00.000Z',
  }),
  'svc.pipeline.v1.batch.staged': (): BatchStaged => ({
    workId: 'w-1',
    batch: { ...changeBatch(), body: { kind: 'seed', seedId: 's-1', part: 0, final: true, startVersion: '90' } },
    files: { bucket: 'bucket', manifestKey: 'f/r-1/public.orders/b-1/manifest.json', partKeys: ['f/r-1/public.orders/b-1/part-00000.csv.gz'] },
    rowCount: 10,
    addedColumns: [],
    extractedAt: '2024-05-01T10:00:00.000Z',
  }),
  'svc.pipeline.v1.batch.loaded': (): BatchLoaded => ({
    workId: 'w-1',
    batchId: 'b-1',
    replicationId: 'r-1',
    table,
    kind: 'seed',
    part: 0,
    final: true,
    version: '90',
    rowCount: 10,
    addedColumns: ['added'],
    extractedAt: '2024-05-01T10:00:00.000Z',
    loadedAt: '2024-05-01T10:00:05.000Z',
  }),
  'svc.pipeline.v1.batch.staging-applied': (): BatchStagingApplied => ({
    workId: 'w-1',
    batchId: 'b-1',
    replicationId: 'r-1',
    table,
    epoch: 3,
    appliedAt: '2024-05-01T10:00:04.000Z',
  }),
  'svc.pipeline.v1.work.failed': (): WorkFailed => ({
    workId: 'w-1',
    replicationId: 'r-1',
    table,
    stage: 'load',
    retryable: false,
    message: 'warehouse refused the load',
    failedAt: '2024-05-01T10:00:05.000Z',
  }),
};

const subjects = Object.keys(valid) as PipelineSubject[];

/** Applies a change to a deep copy of a payload. */
function broken<T>(payload: T, change: (copy: Record<string, unknown>) => void): unknown {
  const copy = structuredClone(payload) as Record<string, unknown>;
  change(copy);
  return copy;
}

function at(copy: Record<string, unknown>, ...path: (string | number)[]): Record<string, unknown> {
  let node: unknown = copy;
  for (const step of path) node = (node as Record<string | number, unknown>)[step];
  return node as Record<string, unknown>;
}

describe('pipeline payload guards', () => {
  it.each(subjects)('accepts a well-formed %s payload', (subject) => {
    expect(pipelinePayloadProblems(subject, valid[subject]())).toEqual([]);
    expect(isPipelinePayload(subject)(valid[subject]())).toBe(true);
  });

  it.each(subjects)('rejects a %s payload that is not an object', (subject) => {
    for (const payload of [null, 'text', 42, [valid[subject]()]]) {
      expect(PIPELINE_PAYLOAD_GUARDS[subject](payload)).toEqual({ ok: false, problems: ['message: must be an object'] });
    }
  });

  it('takes a column collation only as a bare name (it is spliced into staging DDL)', () => {
    const staged = valid['svc.pipeline.v1.batch.staged']() as BatchStaged;
    const withCollation = (collation: string) => {
      const copy = structuredClone(staged);
      copy.batch.definition.columns[1] = { ...copy.batch.definition.columns[1], name: 'mood', sourceType: 'mood', portableType: Portable.text(), nullable: true, collation };
      return copy;
    };
    expect(guardBatchStaged(withCollation('Latin1_General_100_CS_AS_SC_UTF8')).ok).toBe(true);
    const refused = guardBatchStaged(withCollation('Latin1_General_CI_AS; DROP TABLE x'));
    expect(refused.ok ? [] : refused.problems).toContain('batch.definition.columns[1].collation: must be a collation name (letters, digits and underscores)');
  });

  it('allows unknown extra fields (payloads grow additively within v1)', () => {
    expect(guardWorkFailed({ ...valid['svc.pipeline.v1.work.failed'](), futureField: 1 }).ok).toBe(true);
  });

  const extract = valid['svc.pipeline.v1.extract.requested']();
  it.each<[string, unknown, string]>([
    ['missing workId', broken(extract, (c) => delete c['workId']), 'workId: must be a non-empty string'],
    ['empty replicationId', broken(extract, (c) => (c['replicationId'] = '')), 'replicationId: must be a non-empty string'],
    ['table without schema', broken(extract, (c) => delete at(c, 'table')['schema']), 'table.schema: must be a non-empty string'],
    ['table not an object', broken(extract, (c) => (c['table'] = '[public].[orders]')), 'table: must be an object'],
    ['unknown kind', broken(extract, (c) => (c['kind'] = 'reseed')), "kind: must be one of 'seed', 'changes'"],
    ['track missing', broken(extract, (c) => delete c['track']), 'track: must be true or false'],
    ['changes without fromVersion', broken(extract, (c) => delete c['fromVersion']), 'fromVersion: must be a non-empty string'],
    ['seed with a null fromVersion', broken(extract, (c) => Object.assign(c, { kind: 'seed', fromVersion: null })), 'fromVersion: must be a non-empty string'],
    ['batchLimit zero', broken(extract, (c) => (c['batchLimit'] = 0)), 'batchLimit: must be an integer >= 1'],
    ['batchLimit as text', broken(extract, (c) => (c['batchLimit'] = '500000')), 'batchLimit: must be an integer >= 1'],
    ['requestedAt not a date', broken(extract, (c) => (c['requestedAt'] = 'yesterday')), 'requestedAt: must be an ISO timestamp'],
    ['epoch missing', broken(extract, (c) => delete c['epoch']), 'epoch: must be an integer >= 0'],
    ['epoch negative', broken(extract, (c) => (c['epoch'] = -1)), 'epoch: must be an integer >= 0'],
    ['epoch as text', broken(extract, (c) => (c['epoch'] = '7')), 'epoch: must be an integer >= 0'],
  ])('ExtractRequested: %s', (_case, payload, problem) => {
    const result = guardExtractRequested(payload);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems).toContain(problem);
  });

  it('takes a group of one subject\'s messages (small changes of several tables), each member checked as it would be alone', () => {
    const request = valid['svc.pipeline.v1.extract.requested']() as ExtractRequested;
    const staged = valid['svc.pipeline.v1.batch.staged']() as BatchStaged;
    expect(PIPELINE_PAYLOAD_GUARDS['svc.pipeline.v1.extract.requested']({ workId: 'g-1', group: [request, { ...request, workId: 'w-2' }] }).ok).toBe(true);
    expect(PIPELINE_PAYLOAD_GUARDS['svc.pipeline.v1.batch.staged']({ workId: 'g-1', group: [staged] }).ok).toBe(true);
    expect(PIPELINE_PAYLOAD_GUARDS['svc.pipeline.v1.extract.requested']({ workId: 'g-1', group: [request, { ...request, fromVersion: undefined }] })).toEqual({
      ok: false,
      problems: ['group[1].fromVersion: must be a non-empty string'],
    });
    expect(PIPELINE_PAYLOAD_GUARDS['svc.pipeline.v1.batch.extracted']({ workId: 'g-1', group: [] }).ok).toBe(false);
    // A member's work id as the group's: a filter of cancelled work would drop every member with that one.
    expect(PIPELINE_PAYLOAD_GUARDS['svc.pipeline.v1.batch.staged']({ workId: staged.workId, group: [staged] })).toEqual({
      ok: false,
      problems: ["workId: must be the group's own id, not a member's work id"],
    });
    expect(PIPELINE_PAYLOAD_GUARDS['svc.pipeline.v1.batch.extracted']({ workId: 'g-1', group: [staged] }).ok).toBe(false);
    // A subject's one-table guard never takes a group's message.
    expect(isExtractRequested({ workId: 'g-1', group: [request] })).toBe(false);
    expect(isExtractWork({ workId: 'g-1', group: [request] })).toBe(true);
  });

  it('ExtractRequested: a seed needs no fromVersion', () => {
    expect(guardExtractRequested(broken(extract, (c) => Object.assign(c, { kind: 'seed', fromVersion: undefined }))).ok).toBe(true);
  });

  const extracted = valid['svc.pipeline.v1.batch.extracted']();
  it.each<[string, unknown, string]>([
    ['batch missing', broken(extracted, (c) => delete c['batch']), 'batch: must be an object'],
    ['batchId empty', broken(extracted, (c) => (at(c, 'batch')['batchId'] = '')), 'batch.batchId: must be a non-empty string'],
    ['epoch missing', broken(extracted, (c) => delete at(c, 'batch')['epoch']), 'batch.epoch: must be an integer >= 0'],
    ['epoch fractional', broken(extracted, (c) => (at(c, 'batch')['epoch'] = 1.5)), 'batch.epoch: must be an integer >= 0'],
    ['no columns', broken(extracted, (c) => (at(c, 'batch', 'definition')['columns'] = [])), 'batch.definition.columns: must be a non-empty list'],
    [
      'column without portableType',
      broken(extracted, (c) => delete at(c, 'batch', 'definition', 'columns', 1)['portableType']),
      'batch.definition.columns[1].portableType: must be an object',
    ],
    [
      'portableType in an engine\'s spelling (the shape before types were portable)',
      broken(extracted, (c) => (at(c, 'batch', 'definition', 'columns', 1)['portableType'] = 'text')),
      'batch.definition.columns[1].portableType: must be an object',
    ],
    [
      'portableType of an unknown kind',
      broken(extracted, (c) => (at(c, 'batch', 'definition', 'columns', 1)['portableType'] = { kind: 'money' })),
      "batch.definition.columns[1].portableType.kind: must be one of 'integer', 'decimal', 'float', 'text', 'binary', 'boolean', 'date', 'time', 'timestamp', 'interval', 'uuid', 'json', 'native', 'array'",
    ],
    [
      'a text length of 0',
      broken(extracted, (c) => (at(c, 'batch', 'definition', 'columns', 1)['portableType'] = { kind: 'text', length: 0, unit: 'characters', fixed: false })),
      'batch.definition.columns[1].portableType.length: must be null or an integer from 1 to 2147483647',
    ],
    [
      'an array of arrays',
      broken(extracted, (c) => (at(c, 'batch', 'definition', 'columns', 1)['portableType'] = { kind: 'array', element: { kind: 'array', element: { kind: 'uuid' } } })),
      "batch.definition.columns[1].portableType.element.kind: must be one of 'integer', 'decimal', 'float', 'text', 'binary', 'boolean', 'date', 'time', 'timestamp', 'interval', 'uuid', 'json', 'native'",
    ],
    [
      'column nullable as text',
      broken(extracted, (c) => (at(c, 'batch', 'definition', 'columns', 0)['nullable'] = 'false')),
      'batch.definition.columns[0].nullable: must be true or false',
    ],
    [
      'primary key naming no column',
      broken(extracted, (c) => (at(c, 'batch', 'definition')['primaryKey'] = ['order_id'])),
      "batch.definition.primaryKey[0]: 'order_id' is not one of the columns",
    ],
    ['estimatedRows as text', broken(extracted, (c) => (at(c, 'batch', 'definition')['estimatedRows'] = '5')), 'batch.definition.estimatedRows: must be a number'],
    ['body of unknown kind', broken(extracted, (c) => (at(c, 'batch', 'body')['kind'] = 'delta')), "batch.body.kind: must be 'seed' or 'changes'"],
    ['changes without toVersion', broken(extracted, (c) => delete at(c, 'batch', 'body')['toVersion']), 'batch.body.toVersion: must be a non-empty string'],
    ['rows subject elsewhere', broken(extracted, (c) => (c['rowsSubject'] = 'svc.other.rows')), "rowsSubject: must be a subject under svc.pipeline.v1.rows (or an installation's svc-<name>.pipeline.v1.rows)"],
    ['rows subject of no valid installation', broken(extracted, (c) => (c['rowsSubject'] = 'svc-Blue.pipeline.v1.rows.abc')), "rowsSubject: must be a subject under svc.pipeline.v1.rows (or an installation's svc-<name>.pipeline.v1.rows)"],
    ['rows subject with a wildcard', broken(extracted, (c) => (c['rowsSubject'] = 'svc.pipeline.v1.rows.>')), "rowsSubject: must be a subject under svc.pipeline.v1.rows (or an installation's svc-<name>.pipeline.v1.rows)"],
    ['negative chunkCount', broken(extracted, (c) => (c['chunkCount'] = -1)), 'chunkCount: must be an integer >= 0'],
    ['fractional rowCount', broken(extracted, (c) => (c['rowCount'] = 1.5)), 'rowCount: must be an integer >= 0'],
  ])('BatchExtracted: %s', (_case, payload, problem) => {
    const result = guardBatchExtracted(payload);
    expect(result.ok ? [] : result.problems).toContain(problem);
  });

  const staged = valid['svc.pipeline.v1.batch.staged']();
  it.each<[string, unknown, string]>([
    ['seed part missing', broken(staged, (c) => delete at(c, 'batch', 'body')['part']), 'batch.body.part: must be an integer >= 0'],
    ['seed final missing', broken(staged, (c) => delete at(c, 'batch', 'body')['final']), 'batch.body.final: must be true or false'],
    ['seed without seedId', broken(staged, (c) => (at(c, 'batch', 'body')['seedId'] = '')), 'batch.body.seedId: must be a non-empty string'],
    ['epoch null', broken(staged, (c) => (at(c, 'batch')['epoch'] = null)), 'batch.epoch: must be an integer >= 0'],
    ['files without bucket', broken(staged, (c) => delete at(c, 'files')['bucket']), 'files.bucket: must be a non-empty string'],
    ['part key not text', broken(staged, (c) => (at(c, 'files')['partKeys'] = [7])), 'files.partKeys[0]: must be a non-empty string'],
    ['addedColumns not a list', broken(staged, (c) => (c['addedColumns'] = 'a,b')), 'addedColumns: must be a list'],
  ])('BatchStaged: %s', (_case, payload, problem) => {
    const result = guardBatchStaged(payload);
    expect(result.ok ? [] : result.problems).toContain(problem);
  });

  const loaded = valid['svc.pipeline.v1.batch.loaded']();
  it.each<[string, unknown, string]>([
    ['version missing', broken(loaded, (c) => delete c['version']), 'version: must be a non-empty string'],
    ['final as text', broken(loaded, (c) => (c['final'] = 'true')), 'final: must be true or false'],
    ['part negative', broken(loaded, (c) => (c['part'] = -2)), 'part: must be an integer >= 0'],
    ['loadedAt missing', broken(loaded, (c) => delete c['loadedAt']), 'loadedAt: must be an ISO timestamp'],
  ])('BatchLoaded: %s', (_case, payload, problem) => {
    const result = guardBatchLoaded(payload);
    expect(result.ok ? [] : result.problems).toContain(problem);
  });

  it('BatchLoaded: part and final are optional (change batches)', () => {
    expect(guardBatchLoaded(broken(loaded, (c) => Object.assign(c, { kind: 'changes', part: undefined, final: undefined }))).ok).toBe(true);
  });

  const failed = valid['svc.pipeline.v1.work.failed']();
  it.each<[string, unknown, string]>([
    ['unknown stage', broken(failed, (c) => (c['stage'] = 'merge')), "stage: must be one of 'extract', 'stage', 'load'"],
    ['retryable missing', broken(failed, (c) => delete c['retryable']), 'retryable: must be true or false'],
    ['message not text', broken(failed, (c) => (c['message'] = { error: 'x' })), 'message: must be a string'],
    ['reseed as number', broken(failed, (c) => (c['reseed'] = 1)), 'reseed: must be true or false'],
    ['unknown scope', broken(failed, (c) => (c['scope'] = 'database')), "scope: must be one of 'table', 'replication'"],
    ['scope null', broken(failed, (c) => (c['scope'] = null)), "scope: must be one of 'table', 'replication'"],
  ])('WorkFailed: %s', (_case, payload, problem) => {
    const result = guardWorkFailed(payload);
    expect(result.ok ? [] : result.problems).toContain(problem);
  });

  it.each(['table', 'replication'] as const)('WorkFailed: scope %s is accepted (and may be absent)', (scope) => {
    expect(guardWorkFailed({ ...failed, scope })).toEqual({ ok: true, value: { ...failed, scope } });
    expect(guardWorkFailed(failed).ok).toBe(true);
  });

  const cancelled: WorkCancelled = {
    workId: 'w-1',
    replicationId: 'r-1',
    table,
    reason: 'ran past CtProcessTimeoutInMinutes',
    cancelledAt: '2024-05-01T10:00:05.000Z',
  };

  it('WorkCancelled: accepts a well-formed event', () => {
    expect(guardWorkCancelled(cancelled)).toEqual({ ok: true, value: cancelled });
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'w-1', 'message: must be an object'],
    ['workId empty', broken(cancelled, (c) => (c['workId'] = '')), 'workId: must be a non-empty string'],
    ['table missing', broken(cancelled, (c) => delete c['table']), 'table: must be an object'],
    ['reason not text', broken(cancelled, (c) => (c['reason'] = 3)), 'reason: must be a string'],
    ['cancelledAt not a date', broken(cancelled, (c) => (c['cancelledAt'] = 'now')), 'cancelledAt: must be an ISO timestamp'],
  ])('WorkCancelled: %s', (_case, payload, problem) => {
    const result = guardWorkCancelled(payload);
    expect(result.ok ? [] : result.problems).toContain(problem);
    expect(result.ok).toBe(false);
  });

  const progress: WorkProgress = { workId: 'w-1', replicationId: 'r-1', table, stage: 'stage', at: '2030-01-01T00:00:00.000Z' };

  it('WorkProgress: accepts a well-formed heartbeat', () => {
    expect(guardWorkProgress(progress)).toEqual({ ok: true, value: progress });
  });

  it.each<[string, unknown, string]>([
    ['replicationId missing', broken(progress, (c) => delete c['replicationId']), 'replicationId: must be a non-empty string'],
    ['unknown stage', broken(progress, (c) => (c['stage'] = 'merge')), "stage: must be one of 'extract', 'stage', 'load'"],
    ['at not a date', broken(progress, (c) => (c['at'] = 'soon')), 'at: must be an ISO timestamp'],
  ])('WorkProgress: %s', (_case, payload, problem) => {
    const result = guardWorkProgress(payload);
    expect(result.ok ? [] : result.problems).toContain(problem);
  });

  it('reports every problem of a payload together', () => {
    const result = guardWorkFailed({ table: {} });
    expect(result.ok ? [] : result.problems).toEqual([
      'workId: must be a non-empty string',
      'replicationId: must be a non-empty string',
      'table.schema: must be a non-empty string',
      'table.name: must be a non-empty string',
      "stage: must be one of 'extract', 'stage', 'load'",
      'retryable: must be true or false',
      'message: must be a string',
      'failedAt: must be an ISO timestamp',
    ]);
  });

  it('checks a payload against its own subject only', () => {
    expect(isPipelinePayload('svc.pipeline.v1.batch.loaded')(valid['svc.pipeline.v1.work.failed']())).toBe(false);
  });
});
