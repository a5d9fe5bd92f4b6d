import { hasPrimaryKey, type BatchDescriptor, type SeedBatch, type TableDefinition, type TableRef } from '@svc/contracts';
import type { ApplyOutcome, CsvChunks } from '../batch';
import type { GroupedRows, StagingConnector, TableEnsured } from '../capabilities';
import { inLockOrder, refuseUngroupable } from '../change-group';
import { ColumnTypeChangeError, columnChangeNotes, planColumnTypes, suspectedRenames, type TypedColumn } from '../column-type-change';
import { OwnObjectMissingError } from '../errors';
import { claimTable, type OwnershipLedger } from '../table-ownership';
import type { StagingDialect, TransactionStep } from './staging-dialect';

/** Tries of one operation whose control schema turns out missing: the second runs after creating it again. */
const CONTROL_SCHEMA_ATTEMPTS = 2;

/** Nothing to do for this batch: a part of an abandoned seed. */
const SKIP = { commit: false, result: null } as const;
/** Applied before: nothing to apply, but the fence raised to the batch's epoch stays. */
const APPLIED_BEFORE = { commit: true, result: null } as const;
/** The batch's epoch is below the table's fence: it belongs to cancelled work and changes nothing. */
const STALE = { commit: false, result: 'stale' } as const;

type ApplyResult = number | null | 'stale';

/**
 * The staging protocol, the same on every engine: one lock per table, epoch fences, a batch log, seed records,
 * each batch applied set-based in one transaction, and a control schema created again when it turns out missing.
 * The dialect says how each step is done on its engine.
 */
export class StagingProtocol<Session, Column extends TypedColumn = TypedColumn> implements StagingConnector {
  private controlSchema: Promise<void> | undefined;

  constructor(private readonly dialect: StagingDialect<Session, Column>) {}

  /** An existing table is altered (and then written) only when the service created it: see claimTable. */
  async ensureTable(definition: TableDefinition): Promise<TableEnsured> {
    const { schema, name } = definition.table;
    return this.withControlSchema(`staging table ${schema}.${name}`, () => this.ensureTableOnce(definition));
  }

  private ensureTableOnce(definition: TableDefinition): Promise<TableEnsured> {
    const { dialect } = this;
    const { table } = definition;
    return dialect.inTransaction<TableEnsured>(async (session) => {
      await dialect.lockDdl(session);
      const present = await dialect.presentColumns(session, table);
      const exists = present.names.length > 0;
      await claimTable(this.ownershipLedger(session, table), { role: 'Staging', displayName: `${table.schema}.${table.name}`, exists });
      if (!exists) {
        await dialect.createTable(session, definition);
        return { commit: true, result: { created: true, addedColumns: [] } };
      }
      const typed = await present.typed();
      const wanted = definition.columns.map((column) => ({ name: column.name, type: dialect.wantedType(column) }));
      const types = planColumnTypes(typed, wanted, dialect.typeDialect);
      if (types.incompatible.length > 0) throw new ColumnTypeChangeError(table, 'the staging table', types.incompatible);
      const presentNames = new Set(present.names);
      const missing = definition.columns.filter((column) => !presentNames.has(column.name));
      // The lock order (docs/PIPELINE.md): the table's lock before the table itself, as a batch takes them.
      if (missing.length > 0 || types.widen.length > 0) await dialect.lockTable(session, table);
      if (types.widen.length > 0) await dialect.widenColumns(session, table, types.widen, typed);
      if (missing.length > 0) await dialect.addColumns(session, table, missing);
      const schemaChanges = columnChangeNotes('staging', types.widen);
      const renames = columnChangeNotes('staging', [], suspectedRenames(typed, wanted, dialect.typeDialect));
      const result: TableEnsured = {
        created: false,
        addedColumns: missing.map((column) => column.name),
        ...(schemaChanges.length > 0 && { schemaChanges }),
        ...(renames.length > 0 && { suspectedRenames: renames }),
      };
      return { commit: true, result };
    });
  }

  existingColumns(table: TableRef): Promise<string[] | null> {
    return this.dialect.existingColumns(table);
  }

  /**
   * `rows` is read exactly once: into the batch's load when the batch applies, else drained after the
   * transaction, so an iteration that also feeds the batch files sees every byte either way. When applying
   * fails, the iteration stops where the failure happened. A stale batch's rows are not read at all: its files
   * must not be written (a newer unit's batch of the same id may own the same keys).
   *
   * The fence check runs under the table lock, before anything else: a batch of a lower epoch than the
   * table's fence is refused; any other raises the fence to its epoch (also when it was applied before).
   */
  async applyBatch(batch: BatchDescriptor, rows: CsvChunks): Promise<ApplyOutcome> {
    const { dialect } = this;
    const { body, definition } = batch;
    const { schema, name } = definition.table;
    if (body.kind === 'changes' && !hasPrimaryKey(definition)) {
      throw new Error(`changes for ${schema}.${name}: a table without a primary key is never tracked`);
    }
    const reading = new ReadOnce(rows);
    if (body.kind === 'seed' && body.chunked === true) return this.applyChunk(batch, body, reading);
    // Tried again only while no row has been read: the rows can be read once.
    const outcome = await this.withControlSchema(
      `staging batch of ${schema}.${name}`,
      () =>
        dialect.inTransaction<ApplyResult>(async (session) => {
          await dialect.lockTable(session, definition.table);
          if (!(await dialect.raiseFence(session, batch))) return STALE;
          if (!(await dialect.recordBatch(session, batch.batchId))) return APPLIED_BEFORE;
          switch (body.kind) {
            case 'seed':
              return this.applySeedPart(session, batch, body, reading);
            case 'changes':
              return { commit: true, result: await this.mergeRows(session, definition, reading, 'changes') };
          }
        }),
      () => !reading.started,
    );
    return this.outcomeOf(outcome, reading);
  }

  /**
   * Each member as applyBatch applies a change batch, all in one transaction, with one difference: every member's table
   * lock is taken first, in lock order (change-group.ts), before any member's fence is read, so that what a member
   * reads is never older than its lock on an engine whose transaction keeps one snapshot. A stale member changes
   * nothing and its rows are never read; one applied before keeps its raised fence and has its rows drained after the
   * commit. Tried again on a missing control object only while no member's rows have been read.
   */
  async applyChangeGroup(members: readonly GroupedRows[]): Promise<ApplyOutcome[]> {
    if (members.length === 0) return [];
    refuseUngroupable(members.map((member) => member.batch));
    const { dialect } = this;
    const readings = members.map((member, index) => ({ index, batch: member.batch, rows: new ReadOnce(member.rows) }));
    const locked = inLockOrder(readings, ({ batch: { definition } }) => [definition.table.schema, definition.table.name]);
    const results = await this.withControlSchema(
      `staging group of ${members.length} change batches`,
      () =>
        dialect.inTransaction<ApplyResult[]>(async (session) => {
          for (const { batch } of locked) await dialect.lockTable(session, batch.definition.table);
          const applied: ApplyResult[] = [];
          for (const { index, batch, rows } of locked) applied[index] = await this.applyGroupMember(session, batch, rows);
          return { commit: true, result: applied };
        }),
      () => readings.every(({ rows }) => !rows.started),
    );
    const outcomes: ApplyOutcome[] = [];
    for (const { index, rows } of readings) outcomes.push(await this.outcomeOf(results[index], rows));
    return outcomes;
  }

  /** A group member's steps once its table is locked: applyBatch's for a change batch. */
  private async applyGroupMember(session: Session, batch: BatchDescriptor, rows: ReadOnce): Promise<ApplyResult> {
    if (!(await this.dialect.raiseFence(session, batch))) return 'stale';
    if (!(await this.dialect.recordBatch(session, batch.batchId))) return null;
    return this.mergeRows(session, batch.definition, rows, 'changes');
  }

  /**
   * A chunk of a chunked seed, applied beside the seed's other chunks: under the table's lock in shared mode, which
   * every change batch and definition change takes exclusively. Only reads and the batch's own log row are written
   * under it, so chunks do not wait for one another. When the seed has not started here (this chunk came first) or
   * the fence is below the seed's epoch, it is started first under the exclusive lock (table emptied, fence raised),
   * and the chunk applied after. A table another replication writes too (its keys are the same) is written by one
   * batch at a time, chunks included: a merge beside another's insert of the same key would fail or lose one.
   */
  private async applyChunk(batch: BatchDescriptor, seed: SeedBatch, reading: ReadOnce): Promise<ApplyOutcome> {
    const { dialect } = this;
    const { definition, replicationId } = batch;
    const { table } = definition;
    const keyed = hasPrimaryKey(definition);
    const what = `staging chunk of ${table.schema}.${table.name}`;
    /** Chunks of one seed write apart (their key ranges do not meet) and share the lock; beside another replication's writes of the table, a chunk takes it alone. */
    let exclusive = false;
    for (let round = 1; ; round += 1) {
      const outcome = await this.withControlSchema(
        what,
        () =>
          dialect.inTransaction<ApplyResult | 'start' | 'alone'>(async (session) => {
            if (exclusive) await dialect.lockTable(session, table);
            else await dialect.lockTableShared(session, table);
            const fence = await dialect.fenceEpoch(session, replicationId, table);
            if (fence !== null && fence > batch.epoch) return STALE;
            const own = await dialect.currentSeed(session, replicationId, table);
            if (fence !== batch.epoch || own?.seedId !== seed.seedId) return { commit: false, result: 'start' };
            // Another replication's batches write the same keys: beside them this chunk applies alone, as any batch does.
            const shared = await dialect.isShared(session, replicationId, table);
            if (shared && !exclusive) return { commit: false, result: 'alone' };
            if (!(await dialect.recordBatch(session, batch.batchId))) return SKIP;
            if (keyed && (shared || !own.truncated)) return { commit: true, result: await this.mergeRows(session, definition, reading, 'seed') };
            return { commit: true, result: await dialect.appendRows(session, definition, reading) };
          }),
        () => !reading.started,
      );
      if (outcome === 'alone') {
        exclusive = true;
        continue;
      }
      if (outcome !== 'start') return this.outcomeOf(outcome, reading);
      // A few rounds suffice unless a newer seed or epoch keeps coming in between: then this chunk's turn has passed.
      if (round >= 4) throw new Error(`${what}: its seed ${seed.seedId} was started here but did not stay the table's current one`);
      if ((await this.startChunkedSeed(batch, seed)) === 'stale') return this.outcomeOf('stale', reading);
    }
  }

  /** Starts a chunked seed here (its first chunk to arrive) and raises the fence to its epoch, under the exclusive lock. */
  private startChunkedSeed(batch: BatchDescriptor, seed: SeedBatch): Promise<'started' | 'stale'> {
    const { dialect } = this;
    const { definition, replicationId } = batch;
    const { table } = definition;
    return this.withControlSchema(`start of the chunked seed of ${table.schema}.${table.name}`, () =>
      dialect.inTransaction<'started' | 'stale'>(async (session) => {
        await dialect.lockTable(session, table);
        if (!(await dialect.raiseFence(session, batch))) return { commit: false, result: 'stale' };
        const own = await dialect.currentSeed(session, replicationId, table);
        if (own?.seedId !== seed.seedId) await this.startSeedHere(session, batch, seed, await dialect.isShared(session, replicationId, table));
        return { commit: true, result: 'started' };
      }),
    );
  }

  /** What an apply's transaction result means to the caller; rows not read by it are drained (see applyBatch). */
  private async outcomeOf(outcome: ApplyResult, reading: ReadOnce): Promise<ApplyOutcome> {
    if (outcome === 'stale') return { applied: false, rowCount: 0, stale: true };
    if (outcome === null) {
      for await (const chunk of reading) void chunk;
      return { applied: false, rowCount: 0 };
    }
    return { applied: true, rowCount: outcome };
  }

  hasApplied(batchId: string): Promise<boolean> {
    return this.withControlSchema('staging batch log', () => this.dialect.hasApplied(batchId));
  }

  isStale(batch: BatchDescriptor): Promise<boolean> {
    return this.withControlSchema('staging table fences', () => this.dialect.isStale(batch));
  }

  forgetAppliedBatches(appliedBefore: Date): Promise<number> {
    return this.withControlSchema('staging batch log', () => this.dialect.forgetAppliedBatches(appliedBefore));
  }

  forgetReplication(replicationId: string, tables?: readonly TableRef[]): Promise<number> {
    return this.withControlSchema('staging fences and seed records', async () => {
      if (tables === undefined) return this.dialect.forgetReplication(replicationId);
      let forgotten = 0;
      for (const table of tables) forgotten += await this.dialect.forgetReplication(replicationId, table);
      return forgotten;
    });
  }

  async close(): Promise<void> {
    await this.dialect.close();
  }

  /**
   * Part 0 (of a chunked seed: whichever chunk comes first) starts the replication's seed of the table; a later part of
   * another seed of the same replication is stale (a chunk of an older seed is refused by the epoch fence before this). A table no other replication writes is emptied at part 0 and its parts appended. A keyed table another
   * replication writes too (docs/PIPELINE.md, "Staging tables shared by replications") is never emptied: that would
   * take the other replication's rows, which nothing would bring back were this seed abandoned; the seed's rows are
   * merged by key instead. A keyless table has no key to merge by: it is emptied at part 0 and holds the newest
   * seed's rows; a part of a seed another replication started a seed after adds nothing, but is recorded.
   */
  private async applySeedPart(session: Session, batch: BatchDescriptor, seed: SeedBatch, rows: CsvChunks): Promise<TransactionStep<number | null>> {
    const { dialect } = this;
    const { definition, replicationId } = batch;
    const { table } = definition;
    const keyed = hasPrimaryKey(definition);
    const shared = await dialect.isShared(session, replicationId, table);
    let truncated: boolean;
    // The first chunk of a chunked seed to arrive starts it, as part 0 starts a seed read as one snapshot.
    const own = seed.part === 0 && seed.chunked !== true ? undefined : await dialect.currentSeed(session, replicationId, table);
    if ((seed.part === 0 && seed.chunked !== true) || (seed.chunked === true && own?.seedId !== seed.seedId)) {
      truncated = await this.startSeedHere(session, batch, seed, shared);
    } else {
      if (own?.seedId !== seed.seedId) return SKIP;
      if (!keyed && own.superseded) return APPLIED_BEFORE;
      truncated = own.truncated;
    }
    // Seed rows merged by key like inserts of a change batch: a row another replication wrote is replaced, not duplicated.
    if (keyed && (shared || !truncated)) return { commit: true, result: await this.mergeRows(session, definition, rows, 'seed') };
    return { commit: true, result: await dialect.appendRows(session, definition, rows) };
  }

  /**
   * Records `seed` as the replication's current seed of the table; the table is emptied unless it is keyed and another
   * replication writes it too (then the seed merges by key). Whether it was emptied.
   */
  private async startSeedHere(session: Session, batch: BatchDescriptor, seed: SeedBatch, shared: boolean): Promise<boolean> {
    const { table } = batch.definition;
    const truncated = !hasPrimaryKey(batch.definition) || !shared;
    await this.dialect.startSeed(session, batch.replicationId, table, seed.seedId, truncated);
    if (truncated) await this.dialect.truncate(session, table);
    return truncated;
  }

  /**
   * Set-based: every key the batch names goes from the table (deletes, and the old rows of updates), then the rows of
   * inserts and updates come in; a batch that rewrites most of the table rebuilds it instead, where the engine can.
   */
  private async mergeRows(session: Session, definition: TableDefinition, rows: CsvChunks, kind: 'seed' | 'changes'): Promise<number> {
    const rowCount = await this.dialect.loadBatchRows(session, definition, rows, kind);
    // Change batches only: they hold the table's lock alone, where chunks of a seed merging beside each other share it.
    if (kind === 'changes' && (await this.dialect.rebuildWithBatch?.(session, definition, rowCount)) === true) return rowCount;
    await this.dialect.deleteBatchKeys(session, definition);
    await this.dialect.insertBatchRows(session, definition, kind);
    return rowCount;
  }

  /**
   * Runs `work` once the control schema is known to exist. The knowledge is cached per connector (one per
   * staging database), so a database or schema dropped and created again, or a control table dropped, is
   * only found out by `work` failing on a missing object: then the cache is forgotten, the schema created
   * again and `work` run once more (when `canRetry` says it may). A missing object that outlives that is an
   * OwnObjectMissingError, which the pipeline retries: never a terminal failure.
   */
  private async withControlSchema<T>(what: string, work: () => Promise<T>, canRetry: () => boolean = () => true): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      await this.ensureControlSchema();
      try {
        return await work();
      } catch (error) {
        if (!this.dialect.isMissingObject(error)) throw error;
        this.controlSchema = undefined;
        if (attempt >= CONTROL_SCHEMA_ATTEMPTS || !canRetry()) throw new OwnObjectMissingError(what, { cause: error });
      }
    }
  }

  private ensureControlSchema(): Promise<void> {
    const { dialect } = this;
    this.controlSchema ??= dialect
      .inTransaction(async (session) => {
        await dialect.lockDdl(session);
        await dialect.createControlObjects(session);
        return { commit: true, result: undefined };
      })
      .catch((error: unknown) => {
        this.controlSchema = undefined;
        throw error;
      });
    return this.controlSchema;
  }

  /** The staging database's record of the tables the service created, read and written in `session`'s transaction. */
  private ownershipLedger(session: Session, table: TableRef): OwnershipLedger {
    return {
      isRecorded: () => this.dialect.isOwnedTable(session, table),
      isNamedByEarlierVersion: () => this.dialect.isNamedByEarlierVersion(session, table),
      record: () => this.dialect.recordOwnedTable(session, table),
    };
  }
}

/** Rows that can be read once, remembering whether their reading has begun. */
class ReadOnce implements CsvChunks {
  started = false;

  constructor(private readonly rows: CsvChunks) {}

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    this.started = true;
    return this.rows[Symbol.asyncIterator]();
  }
}
