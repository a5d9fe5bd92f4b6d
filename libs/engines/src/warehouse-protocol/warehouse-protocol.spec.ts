import { Portable, type BatchDescriptor, type StagedFiles, type TableDefinition } from '@svc/contracts';
import type { StagedFileReader, WarehouseTableOptions } from '../capabilities';
import { OwnObjectMissingError } from '../errors';
import type { WarehouseDialect, WarehouseLayout } from './warehouse-dialect';
import { WarehouseProtocol } from './warehouse-protocol';

/** What the recording dialect answers: the states of the warehouse the protocol decides on. */
interface Answers {
  fenceAbove?: boolean;
  loadedBefore?: boolean;
  /** The engine's record read before the load's transaction (Redshift's schema log) has the batch. */
  loadedOutside?: boolean;
  currentSeedId?: string | null;
  /** The columns of the existing tables of the pair. */
  tables?: Partial<Record<'target' | 'shadow', Set<string>>>;
  /** What followColumnTypes leaves for after the transaction (here: the notes finishColumnTypes gives). */
  pendingTypes?: string[];
  /** Every call of this step fails as on a missing relation or schema, `times` times. */
  missing?: { step: string; times: number };
}

class MissingObject extends Error {}

/** A dialect that writes down the steps it is asked for. */
function recordingDialect(answers: Answers, withOutsideRecord = false): { dialect: WarehouseDialect<null, WarehouseLayout>; steps: string[] } {
  const steps: string[] = [];
  const step = (name: string): void => {
    steps.push(name);
    if (answers.missing?.step === name && answers.missing.times > 0) {
      answers.missing.times -= 1;
      throw new MissingObject(name);
    }
  };
  const dialect: WarehouseDialect<null, WarehouseLayout> = {
    targetTableName: (table) => `${table.schema}_${table.name}`,
    layout: (definition, options) => ({
      table: definition.table,
      schema: options.schema,
      target: definition.table.name,
      shadow: `${definition.table.name}_shadow`,
      qualifiedTarget: `${options.schema}.${definition.table.name}`,
      qualifiedShadow: `${options.schema}.${definition.table.name}_shadow`,
      history: 'type1',
      keyColumns: definition.primaryKey,
      addUpdateTimestamp: options.addUpdateTimestamp,
    }),
    inTransaction: async <T>(work: (session: null) => Promise<T>) => {
      steps.push('begin');
      try {
        const result = await work(null);
        steps.push('commit');
        return result;
      } catch (error) {
        steps.push('rollback');
        throw error;
      }
    },
    isMissingObject: (error) => error instanceof MissingObject,
    createControlObjects: async () => step('createControlObjects'),
    lockTable: async () => step('lockTable'),
    raiseFence: async () => (step('raiseFence'), answers.fenceAbove !== true),
    ...(withOutsideRecord && { loadedOutsideTransaction: async () => (step('loadedOutsideTransaction'), answers.loadedOutside === true) }),
    isLoaded: async () => (step('isLoaded'), answers.loadedBefore === true),
    recordLoaded: async () => step('recordLoaded'),
    startSeed: async (_session, _layout, seedId) => step(`startSeed ${seedId}`),
    currentSeedId: async () => (step('currentSeedId'), answers.currentSeedId ?? null),
    loadSeedFiles: async (_session, _layout, files) => (step('loadSeedFiles'), files.partKeys.length),
    completeSeed: async () => step('completeSeed'),
    loadChangeFiles: async (_session, _layout, files) => (step('loadChangeFiles'), files.partKeys.length),
    mergeChanges: async () => step('mergeChanges'),
    mergeChangesIntoShadow: async () => step('mergeChangesIntoShadow'),
    inEnsureTransaction: async (layout, controlObjects, work) => {
      const ensured = await dialect.inTransaction(async (session) => (step('lockTable'), work(session)));
      controlObjects.markReady(layout.schema);
      return ensured;
    },
    tableColumns: async (_session, _layout, table) => (step(`tableColumns ${table}`), answers.tables?.[table] ?? null),
    ownershipLedger: () => ({
      isRecorded: async (table) => (step(`isRecorded ${table}`), true),
      isTargetNamedByEarlierVersion: async () => false,
      record: async (table) => step(`record ${table}`),
    }),
    followColumnTypes: async (_session, _layout, target, shadow) => (
      step(`followColumnTypes target=${String(target !== null)} shadow=${String(shadow !== null)}`), { renames: [], pending: answers.pendingTypes ?? [] }
    ),
    setAside: async () => (step('setAside'), 'items_type1_20260101_000000'),
    createTable: async (_session, _layout, table) => step(`createTable ${table}`),
    addMissingColumns: async (_session, _layout, table) => (step(`addMissingColumns ${table}`), table === 'target' ? ['added'] : ['ignored']),
    finishColumnTypes: async (_layout, pending) => (step('finishColumnTypes'), pending as string[]),
    hasTable: async () => false,
    hasLoaded: async () => (step('hasLoaded'), answers.loadedBefore === true),
    isStale: async () => answers.fenceAbove === true,
    forgetLoadedBatches: async () => (step('forgetLoadedBatches'), 0),
    checksumDialect: {} as never,
    checksumTable: () => {
      throw new Error('not read by these tests');
    },
    openChecksumSession: () => Promise.reject(new Error('not read by these tests')),
    close: async () => undefined,
  };
  return { dialect, steps };
}

const items: TableDefinition = {
  table: { schema: 'public', name: 'items' },
  columns: [{ name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false }],
  primaryKey: ['id'],
  estimatedRows: 0,
};
const where: WarehouseTableOptions = { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false };
const files: StagedFiles = { bucket: 'loads', manifestKey: 'm.json', partKeys: ['part-0.csv.gz', 'part-1.csv.gz'] };
const reader: StagedFileReader = { readPart: () => Promise.reject(new Error('the recording dialect reads no file')) };
const changes: BatchDescriptor = { batchId: 'r1/c/1', replicationId: 'r1', epoch: 3, definition: items, body: { kind: 'changes', fromVersion: '1', toVersion: '2' } };
const seedPart = (part: number, final: boolean): BatchDescriptor => ({
  ...changes,
  batchId: `r1/s/seed-a/${part}`,
  body: { kind: 'seed', seedId: 'seed-a', part, final, startVersion: '1' },
});

/** The steps of one batch, after the control objects were made. */
const batchSteps = (steps: string[]): string[] => steps.slice(steps.indexOf('createControlObjects') + 1);

describe('WarehouseProtocol', () => {
  it('loads and merges a change batch under the table lock, after the fence and the batch log, and records it', async () => {
    const { dialect, steps } = recordingDialect({});
    expect(await new WarehouseProtocol(dialect).loadBatch(changes, files, reader, where)).toEqual({ applied: true, rowCount: 2 });
    expect(steps).toEqual(['createControlObjects', 'begin', 'lockTable', 'raiseFence', 'isLoaded', 'loadChangeFiles', 'mergeChanges', 'recordLoaded', 'commit']);
  });

  it("loads a group in one transaction: every table's lock first, then each member's steps; the engine's outside record read before it", async () => {
    const { dialect, steps } = recordingDialect({}, true);
    const orders: BatchDescriptor = { ...changes, batchId: 'r1/o/1', definition: { ...items, table: { schema: 'public', name: 'orders' } } };
    const group = [{ batch: orders, files }, { batch: changes, files: { ...files, partKeys: ['part-0.csv.gz'] } }];
    expect(await new WarehouseProtocol(dialect).loadChangeGroup(group, reader, where)).toEqual([{ applied: true, rowCount: 2 }, { applied: true, rowCount: 1 }]);
    const member = ['raiseFence', 'isLoaded', 'loadChangeFiles', 'mergeChanges', 'recordLoaded'];
    expect(batchSteps(steps)).toEqual(['loadedOutsideTransaction', 'loadedOutsideTransaction', 'begin', 'lockTable', 'lockTable', ...member, ...member, 'commit']);
  });

  it('refuses a group with a seed part before anything is done', async () => {
    const { dialect, steps } = recordingDialect({});
    await expect(new WarehouseProtocol(dialect).loadChangeGroup([{ batch: seedPart(0, true), files }], reader, where)).rejects.toThrow(/public\.items is a seed part/);
    expect(steps).toEqual([]);
  });

  it('refuses a batch below the fence before looking at the batch log: loaded before but stale is stale', async () => {
    const { dialect, steps } = recordingDialect({ fenceAbove: true, loadedBefore: true, loadedOutside: true }, true);
    expect(await new WarehouseProtocol(dialect).loadBatch(changes, files, reader, where)).toEqual({ applied: false, rowCount: 0, stale: true });
    expect(batchSteps(steps)).toEqual(['loadedOutsideTransaction', 'begin', 'lockTable', 'raiseFence', 'commit']);
  });

  it('keeps the raised fence of a batch loaded before and loads nothing', async () => {
    const { dialect, steps } = recordingDialect({ loadedBefore: true });
    expect(await new WarehouseProtocol(dialect).loadBatch(changes, files, reader, where)).toEqual({ applied: false, rowCount: 0 });
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'isLoaded', 'commit']);
  });

  it('counts a batch found in the record read before the transaction as loaded, after the fence', async () => {
    const { dialect, steps } = recordingDialect({ loadedOutside: true }, true);
    expect(await new WarehouseProtocol(dialect).loadBatch(changes, files, reader, where)).toEqual({ applied: false, rowCount: 0 });
    expect(batchSteps(steps)).toEqual(['loadedOutsideTransaction', 'begin', 'lockTable', 'raiseFence', 'commit']);
  });

  it('starts the seed at part 0: the shadow emptied and the seed recorded before its files', async () => {
    const { dialect, steps } = recordingDialect({});
    expect(await new WarehouseProtocol(dialect).loadBatch(seedPart(0, false), files, reader, where)).toEqual({ applied: true, rowCount: 2 });
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'isLoaded', 'startSeed seed-a', 'loadSeedFiles', 'recordLoaded', 'commit']);
  });

  it('loads a later part of the current seed, and the final one makes the shadow the target', async () => {
    const { dialect, steps } = recordingDialect({ currentSeedId: 'seed-a' });
    expect(await new WarehouseProtocol(dialect).loadBatch(seedPart(2, true), files, reader, where)).toEqual({ applied: true, rowCount: 2 });
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'isLoaded', 'currentSeedId', 'loadSeedFiles', 'completeSeed', 'recordLoaded', 'commit']);
  });

  it('loads nothing of, and does not record, a later part of a seed that is no longer the current one', async () => {
    const { dialect, steps } = recordingDialect({ currentSeedId: 'seed-b' });
    expect(await new WarehouseProtocol(dialect).loadBatch(seedPart(1, true), files, reader, where)).toEqual({ applied: false, rowCount: 0 });
    expect(batchSteps(steps)).toEqual(['begin', 'lockTable', 'raiseFence', 'isLoaded', 'currentSeedId', 'commit']);
  });

  it('creates the control objects again and runs the load once more when one is missing', async () => {
    const { dialect, steps } = recordingDialect({ missing: { step: 'raiseFence', times: 1 } });
    expect(await new WarehouseProtocol(dialect).loadBatch(changes, files, reader, where)).toEqual({ applied: true, rowCount: 2 });
    expect(steps.filter((name) => name === 'createControlObjects')).toHaveLength(2);
    expect(steps.filter((name) => name === 'recordLoaded')).toHaveLength(1);
  });

  it('makes a missing object that outlives the second try OwnObjectMissingError, which the pipeline retries', async () => {
    const { dialect } = recordingDialect({ missing: { step: 'hasLoaded', times: 2 } });
    await expect(new WarehouseProtocol(dialect).hasLoaded('r1/c/1', where)).rejects.toBeInstanceOf(OwnObjectMissingError);
  });

  it('creates the target it does not find, claiming it and its shadow name as the service’s first; no shadow (a seed makes its own)', async () => {
    const { dialect, steps } = recordingDialect({});
    expect(await new WarehouseProtocol(dialect).ensureTable(items, where)).toEqual({ created: true, addedColumns: [] });
    expect(steps).toEqual([
      'begin',
      'lockTable',
      'tableColumns target',
      'tableColumns shadow',
      'record items',
      'record items_shadow',
      'followColumnTypes target=false shadow=false',
      'createTable target',
      'commit',
      'finishColumnTypes',
    ]);
  });

  it('adds the columns the target lacks, and makes the type changes left for after the transaction once it committed', async () => {
    const { dialect, steps } = recordingDialect({ tables: { target: new Set(['id']), shadow: new Set(['id']) }, pendingTypes: ['widened column label'] });
    expect(await new WarehouseProtocol(dialect).ensureTable(items, where)).toEqual({ created: false, addedColumns: ['added'], schemaChanges: ['widened column label'] });
    expect(steps.slice(steps.indexOf('followColumnTypes target=true shadow=true'))).toEqual([
      'followColumnTypes target=true shadow=true',
      'addMissingColumns target',
      'addMissingColumns shadow',
      'commit',
      'finishColumnTypes',
    ]);
  });

  it('sets a target of the other ScdType aside and creates a new one; its types are not followed', async () => {
    const { dialect, steps } = recordingDialect({ tables: { target: new Set(['id', 'svc_sys_valid_from']), shadow: new Set(['id']) } });
    expect(await new WarehouseProtocol(dialect).ensureTable(items, where)).toEqual({ created: true, addedColumns: [], keptAs: 'items_type1_20260101_000000' });
    expect(steps.slice(steps.indexOf('isRecorded items_shadow') + 1)).toEqual([
      'followColumnTypes target=false shadow=true',
      'setAside',
      'createTable target',
      'addMissingColumns shadow',
      'commit',
      'finishColumnTypes',
    ]);
  });

  it('makes the control objects once per schema while nothing is found missing', async () => {
    const { dialect, steps } = recordingDialect({});
    const warehouse = new WarehouseProtocol(dialect);
    await warehouse.loadBatch(changes, files, reader, where);
    await warehouse.hasLoaded('r1/c/1', where);
    await warehouse.forgetLoadedBatches(new Date(0), where);
    await warehouse.hasLoaded('r1/c/1', { ...where, schema: 'other' });
    expect(steps.filter((name) => name === 'createControlObjects')).toHaveLength(2);
  });

  it('counts control objects made by the dialect’s ensuring transaction as made', async () => {
    const { dialect, steps } = recordingDialect({});
    const warehouse = new WarehouseProtocol(dialect);
    await warehouse.ensureTable(items, where);
    await warehouse.loadBatch(changes, files, reader, where);
    expect(steps).not.toContain('createControlObjects');
  });
});
