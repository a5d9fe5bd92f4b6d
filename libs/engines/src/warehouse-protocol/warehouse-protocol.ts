import type { BatchDescriptor, SeedBatch, StagedFiles, TableDefinition, TableRef } from '@svc/contracts';
import type { ApplyOutcome } from '../batch';
import type { GroupedFiles, StagedFileReader, WarehouseConnector, WarehouseTableOptions } from '../capabilities';
import { inLockOrder, refuseUngroupable } from '../change-group';
import type { WarehouseChecksums } from '../validation/checksums';
import { checksumReader } from '../validation/checksum-rows';
import { OwnObjectMissingError } from '../errors';
import { claimWarehouseTables } from '../table-ownership';
import { scdTypeChanged, type ColumnNames } from './warehouse-columns';
import type { ControlObjectsGuard, WarehouseDialect, WarehouseEnsured, WarehouseLayout } from './warehouse-dialect';

/** Tries of one operation whose control objects turn out missing: the second runs after creating them again. */
const CONTROL_OBJECT_ATTEMPTS = 2;

const NOT_APPLIED: ApplyOutcome = { applied: false, rowCount: 0 };
const STALE: ApplyOutcome = { applied: false, rowCount: 0, stale: true };

/**
 * The warehouse protocol, the same on every engine: each batch in one transaction that first takes its table's
 * lock, then checks the epoch fence, then the batch log; seed parts collect in the shadow in order and the final
 * part makes them the target's rows; change batches merge set-based; control objects created again when they
 * turn out missing. The dialect says how each step is done on its engine.
 */
export class WarehouseProtocol<Session, Layout extends WarehouseLayout, Columns extends ColumnNames = ColumnNames, Pending = unknown> implements WarehouseConnector {
  /** Schemas whose control objects are known to exist. */
  private readonly readySchemas = new Set<string>();
  private readonly guard: ControlObjectsGuard = {
    run: (schema, what, work) => this.withControlObjects(schema, what, work),
    markReady: (schema) => this.readySchemas.add(schema),
  };

  constructor(private readonly dialect: WarehouseDialect<Session, Layout, Columns, Pending>) {}

  targetTableName(table: TableRef): string {
    return this.dialect.targetTableName(table);
  }

  checksums(definition: TableDefinition, options: WarehouseTableOptions): WarehouseChecksums {
    const { dialect } = this;
    const layout = dialect.layout(definition, options);
    const table = dialect.checksumTable(layout, definition);
    return {
      openSnapshot: async () => {
        const session = await dialect.openChecksumSession(layout);
        return checksumReader(dialect.checksumDialect, table, session.query, () => session.close());
      },
    };
  }

  /**
   * Creates the target, or adds the columns it (and a seed's shadow, while one runs) lacks and follows the source's
   * column types. An existing
   * target or shadow the service did not create is left as it is: ForeignTableError (claimWarehouseTables). A
   * target of the other ScdType is set aside (`keptAs`) and a new one created, to be seeded.
   */
  async ensureTable(definition: TableDefinition, options: WarehouseTableOptions): Promise<WarehouseEnsured> {
    const { dialect } = this;
    const layout = dialect.layout(definition, options);
    const ensured = await dialect.inEnsureTransaction(layout, this.guard, async (session) => {
      const target = await dialect.tableColumns(session, layout, 'target');
      const shadow = await dialect.tableColumns(session, layout, 'shadow');
      const pair = { schema: layout.schema, target: layout.target, targetExists: target !== null, shadow: layout.shadow, shadowExists: shadow !== null };
      await claimWarehouseTables(dialect.ownershipLedger(session, layout), pair);
      const otherScdType = target !== null && scdTypeChanged(layout.history, target);
      const types = await dialect.followColumnTypes(session, layout, otherScdType ? null : target, shadow);
      const keptAs = target !== null && otherScdType ? await dialect.setAside(session, layout, target) : undefined;
      let addedColumns: string[] = [];
      if (target === null || otherScdType) await dialect.createTable(session, layout, 'target');
      else addedColumns = await dialect.addMissingColumns(session, layout, 'target', target);
      // A shadow lives while a seed runs: the seed's first part makes it (dialect.startSeed), its completion drops it.
      if (shadow !== null) await dialect.addMissingColumns(session, layout, 'shadow', shadow);
      return { created: target === null || otherScdType, addedColumns, renames: types.renames, pending: types.pending, keptAs };
    });
    const schemaChanges = await dialect.finishColumnTypes(layout, ensured.pending);
    return {
      created: ensured.created,
      addedColumns: ensured.addedColumns,
      ...(schemaChanges.length > 0 && { schemaChanges }),
      ...(ensured.renames.length > 0 && { suspectedRenames: ensured.renames }),
      ...(ensured.keptAs !== undefined && { keptAs: ensured.keptAs }),
    };
  }

  /**
   * A batch of a lower epoch than the table's fence (a cancelled unit of work), a batch loaded before, or a part
   * of an abandoned seed changes nothing; otherwise its files are loaded, merged, and its id recorded. The fence
   * is checked first, under the table lock: any batch not stale raises it to its epoch, also one loaded before.
   */
  loadBatch(batch: BatchDescriptor, files: StagedFiles, reader: StagedFileReader, options: WarehouseTableOptions): Promise<ApplyOutcome> {
    const { dialect } = this;
    const layout = dialect.layout(batch.definition, options);
    // The staged files can be read again, so the whole load may run once more.
    return this.withControlObjects(layout.schema, `warehouse load of ${layout.qualifiedTarget}`, async () => {
      const loadedBefore = (await dialect.loadedOutsideTransaction?.(layout, batch.batchId)) ?? false;
      return dialect.inTransaction(async (session) => {
        await dialect.lockTable(session, layout);
        const skipped = await this.skipped(session, layout, batch, loadedBefore);
        if (skipped !== null) return skipped;
        let rowCount: number;
        switch (batch.body.kind) {
          case 'changes': {
            const close = batch.body.closesSeed;
            if (close !== undefined && (await dialect.currentSeedId(session, layout)) !== close.seedId) {
              throw new Error(`the shadow of ${layout.qualifiedTarget} does not hold seed ${close.seedId} any more: its close cannot apply`);
            }
            rowCount = await dialect.loadChangeFiles(session, layout, files, reader);
            if (close === undefined) {
              await dialect.mergeChanges(session, layout, rowCount);
              break;
            }
            // A chunked seed's close: the changes from its horizon go over the chunks in the shadow, and its last batch
            // makes the shadow the table's, so the target never shows a seed whose chunks were read at different times.
            await dialect.mergeChangesIntoShadow(session, layout);
            if (batch.body.final !== false) await dialect.completeSeed(session, layout);
            break;
          }
          case 'seed': {
            const loaded = await this.loadSeedPart(session, layout, batch.body, files, reader);
            if (loaded === null) return NOT_APPLIED;
            rowCount = loaded;
            break;
          }
        }
        await dialect.recordLoaded(session, layout, batch.batchId);
        return { applied: true, rowCount };
      });
    });
  }

  /**
   * Each member as loadBatch loads a change batch, all in one transaction in the schema `options` names, with one
   * difference: every member's table lock is taken first, in lock order (change-group.ts), before any statement reads a
   * member's fence: a transaction that keeps one snapshot from its first read (Redshift's) then reads what every load
   * before it committed, on every member's table. A stale member and one loaded before change nothing.
   */
  async loadChangeGroup(members: readonly GroupedFiles[], reader: StagedFileReader, options: WarehouseTableOptions): Promise<ApplyOutcome[]> {
    if (members.length === 0) return [];
    refuseUngroupable(members.map((member) => member.batch));
    const { dialect } = this;
    const loads = members.map(({ batch, files }, index) => ({ index, batch, files, layout: dialect.layout(batch.definition, options) }));
    const targets = new Set<string>();
    for (const { layout } of loads) {
      if (targets.has(layout.qualifiedTarget)) throw new Error(`change group: two batches load ${layout.qualifiedTarget}; a group holds one batch per table`);
      targets.add(layout.qualifiedTarget);
    }
    const locked = inLockOrder(loads, ({ layout }) => [asciiLowerCase(layout.target), layout.target]);
    // The staged files can be read again, so the whole group may run once more.
    return this.withControlObjects(options.schema, `warehouse load of a group of ${members.length} change batches`, async () => {
      const loadedBefore: boolean[] = [];
      for (const { index, batch, layout } of loads) loadedBefore[index] = (await dialect.loadedOutsideTransaction?.(layout, batch.batchId)) ?? false;
      return dialect.inTransaction(async (session) => {
        for (const { layout } of locked) await dialect.lockTable(session, layout);
        const outcomes: ApplyOutcome[] = [];
        for (const { index, batch, files, layout } of locked) {
          outcomes[index] = (await this.skipped(session, layout, batch, loadedBefore[index] === true)) ?? (await this.loadChanges(session, layout, batch, files, reader));
        }
        return outcomes;
      });
    });
  }

  /** A plain change batch's files loaded and merged into its table, and the batch recorded. */
  private async loadChanges(session: Session, layout: Layout, batch: BatchDescriptor, files: StagedFiles, reader: StagedFileReader): Promise<ApplyOutcome> {
    const rowCount = await this.dialect.loadChangeFiles(session, layout, files, reader);
    await this.dialect.mergeChanges(session, layout, rowCount);
    await this.dialect.recordLoaded(session, layout, batch.batchId);
    return { applied: true, rowCount };
  }

  hasTable(table: TableRef, options: WarehouseTableOptions): Promise<boolean> {
    return this.dialect.hasTable(table, options);
  }

  hasLoaded(batchId: string, options: WarehouseTableOptions): Promise<boolean> {
    return this.withControlObjects(options.schema, 'warehouse batch log', () => this.dialect.hasLoaded(options.schema, batchId));
  }

  isStale(batch: BatchDescriptor, options: WarehouseTableOptions): Promise<boolean> {
    return this.dialect.isStale(this.dialect.layout(batch.definition, options), batch, this.guard);
  }

  forgetLoadedBatches(loadedBefore: Date, options: WarehouseTableOptions): Promise<number> {
    return this.withControlObjects(options.schema, 'warehouse batch log', () => this.dialect.forgetLoadedBatches(options.schema, loadedBefore));
  }

  async close(): Promise<void> {
    await this.dialect.close();
  }

  /**
   * What a batch whose table's lock is held comes to without being loaded: stale when the table's fence is above its
   * epoch (else the fence is raised to it), not applied when it was loaded before; null when it is to be loaded.
   */
  private async skipped(session: Session, layout: Layout, batch: BatchDescriptor, loadedBefore: boolean): Promise<ApplyOutcome | null> {
    if (!(await this.dialect.raiseFence(session, layout, batch))) return STALE;
    if (loadedBefore || (await this.dialect.isLoaded(session, layout, batch.batchId))) return NOT_APPLIED;
    return null;
  }

  /**
   * Null when the part belongs to a seed that is no longer the table's current one. This is what keeps the
   * shadow to one seed's rows, without a per-row stamp: part 0 empties it and records its seed in the same
   * transaction, under the table lock; a later part is loaded only while its seed is still the recorded one
   * (a newer seed's part 0 has emptied the shadow otherwise, and the epoch fence refuses cancelled work
   * before this); the final part makes the shadow's rows the target's.
   */
  private async loadSeedPart(session: Session, layout: Layout, seed: SeedBatch, files: StagedFiles, reader: StagedFileReader): Promise<number | null> {
    const { dialect } = this;
    if (seed.chunked === true) {
      // Whichever chunk of a chunked seed comes first starts it; none completes it (its close does).
      if ((await dialect.currentSeedId(session, layout)) !== seed.seedId) await dialect.startSeed(session, layout, seed.seedId);
      return dialect.loadSeedFiles(session, layout, files, reader);
    }
    if (seed.part === 0) await dialect.startSeed(session, layout, seed.seedId);
    else if ((await dialect.currentSeedId(session, layout)) !== seed.seedId) return null;
    const rowCount = await dialect.loadSeedFiles(session, layout, files, reader);
    if (seed.final) await dialect.completeSeed(session, layout);
    return rowCount;
  }

  /**
   * Runs `work` once the schema's control objects are known to exist. That knowledge is cached per schema, so a
   * database or schema dropped and created again, or a control table dropped, is only found out by `work` failing
   * on a missing object: then the schema is forgotten, its control objects created again and `work` run once
   * more. A missing object that outlives that is an OwnObjectMissingError, which the pipeline retries: never a
   * terminal failure.
   */
  private async withControlObjects<T>(schema: string, what: string, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      if (!this.readySchemas.has(schema)) {
        await this.dialect.createControlObjects(schema);
        this.readySchemas.add(schema);
      }
      try {
        return await work();
      } catch (error) {
        if (!this.dialect.isMissingObject(error)) throw error;
        this.readySchemas.delete(schema);
        if (attempt >= CONTROL_OBJECT_ATTEMPTS) throw new OwnObjectMissingError(what, { cause: error });
      }
    }
  }
}

/**
 * ASCII letters in lower case, as Redshift folds names (its lock on "Orders" is its lock on "orders"), so that names one
 * engine folds and another keeps apart sort the same way on both.
 */
function asciiLowerCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}
