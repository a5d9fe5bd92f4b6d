import { Portable, type BatchDescriptor, type TableDefinition } from '@svc/contracts';
import type { CsvChunks } from '../batch';
import { OwnObjectMissingError } from '../errors';
import type { SeedRecord, StagingDialect, TransactionStep } from './staging-dialect';
import { StagingProtocol } from './staging-protocol';

/** What the recording dialect answers: the states of the staging database the protocol decides on. */
interface Answers {
  fenceAbove?: boolean;
  recordedBefore?: boolean;
  shared?: boolean;
  currentSeed?: SeedRecord;
  /** The first call of this step fails as on a missing relation or schema. */
  missingOnce?: string;
  /** The step that fails after reading the rows, as on a missing relation. */
  missingAfterRows?: boolean;
  /** The engine rebuilds the table with a change batch (it changes a large share of it). */
  rebuilds?: boolean;
}

class MissingObject extends Error {}

/** A dialect that writes down the steps it is asked for and reads rows where a real one would. */
function recordingDialect(answers: Answers): { dialect: StagingDialect<null>; steps: string[] } {
  const steps: string[] = [];
  const step = (name: string): void => {
    steps.push(name);
    if (answers.missingOnce === name) {
      delete answers.missingOnce;
      throw new MissingObject(name);
    }
  };
  const readRows = async (rows: CsvChunks): Promise<number> => {
    let count = 0;
    for await (const chunk of rows) count += chunk.toString().split('\n').filter(Boolean).length;
    if (answers.missingAfterRows === true) throw new MissingObject('batch table');
    return count;
  };
  const dialect: StagingDialect<null> = {
    typeDialect: 'postgres',
    inTransaction: async <T>(work: (session: null) => Promise<TransactionStep<T>>) => {
      steps.push('begin');
      try {
        const { commit, result } = await work(null);
        steps.push(commit ? 'commit' : 'rollback');
        return result;
      } catch (error) {
        steps.push('rollback');
        throw error;
      }
    },
    isMissingObject: (error) => error instanceof MissingObject,
    lockDdl: async () => step('lockDdl'),
    createControlObjects: async () => step('createControlObjects'),
    lockTable: async () => step('lockTable'),
    lockTableShared: async () => step('lockTableShared'),
    fenceEpoch: async () => (step('fenceEpoch'), null),
    raiseFence: async () => (step('raiseFence'), answers.fenceAbove !== true),
    isStale: async () => (step('isStale'), answers.fenceAbove === true),
    recordBatch: async () => (step('recordBatch'), answers.recordedBefore !== true),
    hasApplied: async () => (step('hasApplied'), answers.recordedBefore === true),
    forgetAppliedBatches: async () => (step('forgetAppliedBatches'), 0),
    forgetReplication: async () => (step('forgetReplication'), 0),
    isShared: async () => (step('isShared'), answers.shared === true),
    startSeed: async (_session, _replication, _table, _seed, truncated) => step(`startSeed truncated=${String(truncated)}`),
    currentSeed: async () => (step('currentSeed'), answers.currentSeed),
    truncate: async () => step('truncate'),
    appendRows: async (_session, _definition, rows) => (step('appendRows'), readRows(rows)),
    loadBatchRows: async (_session, _definition, rows, kind) => (step(`loadBatchRows ${kind}`), readRows(rows)),
    rebuildWithBatch: async (_session, _definition, rowCount) => (step(`rebuildWithBatch ${rowCount}`), answers.rebuilds === true),
    deleteBatchKeys: async () => step('deleteBatchKeys'),
    insertBatchRows: async (_session, _definition, kind) => step(`insertBatchRows ${kind}`),
    presentColumns: async () => (step('presentColumns'), { names: [], typed: async () => [] }),
    wantedType: (column) => column.portableType.kind,
    createTable: async () => step('createTable'),
    widenColumns: async () => step('widenColumns'),
    addColumns: async () => step('addColumns'),
    existingColumns: async () => null,
    isOwnedTable: async () => (step('isOwnedTable'), false),
    isNamedByEarlierVersion: async () => (step('isNamedByEarlierVersion'), false),
    recordOwnedTable: async () => step('recordOwnedTable'),
    close: async () => undefined,
  };
  return { dialect, steps };
}

const keyed: TableDefinition = {
  table: { schema: 'dbo', name: 'Orders' },
  columns: [{ name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false }],
  primaryKey: ['id'],
  estimatedRows: 0,
};
const changes: BatchDescriptor = { batchId: 'r1/c/1', replicationId: 'r1', epoch: 3, definition: keyed, body: { kind: 'changes', fromVersion: '1', toVersion: '2' } };
const seedPart = (part: number, definition = keyed): BatchDescriptor => ({
  ...changes,
  definition,
  batchId: `r1/s/seed-a/${part}`,
  body: { kind: 'seed', seedId: 'seed-a', part, final: false, startVersion: '1' },
});

function rows(csv: string): CsvChunks & { read: boolean } {
  const source = {
    read: false,
    async *[Symbol.asyncIterator]() {
      source.read = true;
      yield Buffer.from(csv);
    },
  };
  return source;
}

/** The steps of one batch, after the control schema's own transaction. */
const batchSteps = (steps: string[]): string[] => steps.slice(steps.indexOf('commit') + 1);

describe('StagingProtocol', () => {
  it('merges a change batch by key under the table lock, after the fence and the batch log', async () => {
    const { dialect, steps } = recordingDialect({});
    expect(await new StagingProtocol(dialect).applyBatch(changes, rows('I,1\nD,2\n'))).toEqual({ applied: true, rowCount: 2 });
    expect(steps).toEqual(['begin', 'lockDdl', 'createControlObjects', 'commit', 'begin', 'lockTable', 'raiseFence', 'recordBatch', 'loadBatchRows changes', 'rebuildWithBatch 2', 'deleteBatchKeys', 'insertBatchRows changes', 'commit']);
  });

  it('lets the engine rebuild the table with a change batch that rewrites most of it, instead of deleting and inserting', async () => {
    const { dialect, steps } = recordingDialect({ rebuilds: true });
    expect(await new StagingProtocol(dialect).applyBatch(changes, rows('U,1\nU,2\nD,3\n'))).toEqual({ applied: true, rowCount: 3 });
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'recordBatch', 'loadBatchRows changes', 'rebuildWithBatch 3', 'commit']);
  });

  it("applies a group in one transaction: every table's lock first, then each member's steps", async () => {
    const { dialect, steps } = recordingDialect({});
    const orders: BatchDescriptor = { ...changes, batchId: 'r1/o/1', definition: { ...keyed, table: { schema: 'dbo', name: 'Lines' } } };
    const outcomes = await new StagingProtocol(dialect).applyChangeGroup([
      { batch: changes, rows: rows('I,1\n') },
      { batch: orders, rows: rows('I,1\nD,2\n') },
    ]);
    expect(outcomes).toEqual([{ applied: true, rowCount: 1 }, { applied: true, rowCount: 2 }]);
    const member = (count: number) => ['raiseFence', 'recordBatch', 'loadBatchRows changes', `rebuildWithBatch ${count}`, 'deleteBatchKeys', 'insertBatchRows changes'];
    // Lock order: dbo.Lines before dbo.Orders.
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'lockTable', ...member(2), ...member(1), 'commit']);
  });

  it('does not retry a group once a member\'s rows were read', async () => {
    const { dialect } = recordingDialect({ missingAfterRows: true });
    const first = rows('I,1\n');
    await expect(new StagingProtocol(dialect).applyChangeGroup([{ batch: changes, rows: first }])).rejects.toBeInstanceOf(OwnObjectMissingError);
    expect(first.read).toBe(true);
  });

  it('retries a group whose control schema turned out missing before any row was read', async () => {
    const { dialect, steps } = recordingDialect({ missingOnce: 'raiseFence' });
    expect(await new StagingProtocol(dialect).applyChangeGroup([{ batch: changes, rows: rows('I,1\n') }])).toEqual([{ applied: true, rowCount: 1 }]);
    expect(steps.filter((name) => name === 'createControlObjects')).toHaveLength(2);
  });

  it('refuses a batch below the fence without reading its rows', async () => {
    const { dialect, steps } = recordingDialect({ fenceAbove: true });
    const batchRows = rows('I,1\n');
    expect(await new StagingProtocol(dialect).applyBatch(changes, batchRows)).toEqual({ applied: false, rowCount: 0, stale: true });
    expect(batchRows.read).toBe(false);
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'rollback']);
  });

  it('commits the raised fence of a batch applied before, and drains its rows unapplied', async () => {
    const { dialect, steps } = recordingDialect({ recordedBefore: true });
    const batchRows = rows('I,1\n');
    expect(await new StagingProtocol(dialect).applyBatch(changes, batchRows)).toEqual({ applied: false, rowCount: 0 });
    expect(batchRows.read).toBe(true);
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'recordBatch', 'commit']);
  });

  it('empties a table no other replication writes at part 0 and appends the seed', async () => {
    const { dialect, steps } = recordingDialect({});
    expect(await new StagingProtocol(dialect).applyBatch(seedPart(0), rows('1\n2\n'))).toEqual({ applied: true, rowCount: 2 });
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'recordBatch', 'isShared', 'startSeed truncated=true', 'truncate', 'appendRows', 'commit']);
  });

  it('merges the seed of a keyed table another replication writes, never emptying it (nor rebuilding it: only change batches do)', async () => {
    const { dialect, steps } = recordingDialect({ shared: true, rebuilds: true });
    await new StagingProtocol(dialect).applyBatch(seedPart(0), rows('1\n'));
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'recordBatch', 'isShared', 'startSeed truncated=false', 'loadBatchRows seed', 'deleteBatchKeys', 'insertBatchRows seed', 'commit']);
  });

  it('skips a later part of another seed: rolled back, rows drained', async () => {
    const { dialect, steps } = recordingDialect({ currentSeed: { seedId: 'seed-b', truncated: true, superseded: false } });
    const batchRows = rows('1\n');
    expect(await new StagingProtocol(dialect).applyBatch(seedPart(1), batchRows)).toEqual({ applied: false, rowCount: 0 });
    expect(batchRows.read).toBe(true);
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'recordBatch', 'isShared', 'currentSeed', 'rollback']);
  });

  it('records, but does not apply, a part of a keyless seed another replication superseded', async () => {
    const keyless = { ...keyed, primaryKey: [] };
    const { dialect, steps } = recordingDialect({ currentSeed: { seedId: 'seed-a', truncated: true, superseded: true } });
    expect(await new StagingProtocol(dialect).applyBatch(seedPart(1, keyless), rows('1\n'))).toEqual({ applied: false, rowCount: 0 });
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'recordBatch', 'isShared', 'currentSeed', 'commit']);
  });

  it('creates the control schema again and retries once when a control object is missing before any row is read', async () => {
    const { dialect, steps } = recordingDialect({ missingOnce: 'raiseFence' });
    expect(await new StagingProtocol(dialect).applyBatch(changes, rows('I,1\n'))).toEqual({ applied: true, rowCount: 1 });
    expect(steps.filter((name) => name === 'createControlObjects')).toHaveLength(2);
  });

  it('does not retry once rows were read: the missing object is OwnObjectMissingError, retried by the pipeline', async () => {
    const { dialect, steps } = recordingDialect({ missingAfterRows: true });
    await expect(new StagingProtocol(dialect).applyBatch(changes, rows('I,1\n'))).rejects.toBeInstanceOf(OwnObjectMissingError);
    expect(steps.filter((name) => name.startsWith('loadBatchRows'))).toHaveLength(1);
  });

  it('creates a table it does not find, recording it as the service’s', async () => {
    const { dialect, steps } = recordingDialect({});
    expect(await new StagingProtocol(dialect).ensureTable(keyed)).toEqual({ created: true, addedColumns: [] });
    expect(batchSteps(steps)).toEqual(['begin', 'lockDdl', 'presentColumns', 'recordOwnedTable', 'createTable', 'commit']);
  });
});
