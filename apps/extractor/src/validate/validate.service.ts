import { Inject, Injectable } from '@nestjs/common';
import {
  Subjects,
  hasPrimaryKey,
  tableKey,
  type TableDefinition,
  type ValidateRequested,
  type ValidationFoundKey,
  type ValidationReportBody,
  type ValidationReportReply,
  type ValidationResultReport,
} from '@svc/contracts';
import {
  ChecksumsUnsupportedError,
  DEFAULT_COMPARISON_LIMITS,
  TableTooBusyError,
  compareTable,
  type ChecksumReader,
  type ComparisonProgress,
  type SourceChecksums,
  type TableComparison,
  type WarehouseChecksums,
  type WarehouseTableOptions,
} from '@svc/engines';
import { JsonLogger } from '@svc/logging';
import { NatsRequester, WorkAbortedError, abortableSleep } from '@svc/messaging';
import type { WorkerConfig } from '@svc/config';
import { WORKER_CONFIG, WORKER_SHUTDOWN } from '@svc/pipeline-nest';
import { EngineRegistry, RuntimeConfigClient, classifyFailure, failureLogFields } from '@svc/pipeline-runtime';
import { projectOntoColumns } from '../extract/schema-projection';

/** A comparison tells the registry it is alive at least this often (the registry puts back one silent for a minute). */
export const VALIDATION_HEARTBEAT_MS = 10_000;
/** Differing keys a repair applies again one by one; a table with more is reseeded. */
export const REPAIR_MAX_KEYS = 10_000;
/** Why a repair reseeds a table whose source cannot mark keys changed (SourceChecksums.markChanged absent). */
export const RESEED_WITHOUT_KEY_MARKS =
  'its source records a change only when the row itself is written, and a repair never writes the source\'s rows, so the table is reseeded instead of repaired key by key';
/** How long a repair waits for the change cycle that applies it. */
const REPAIR_CYCLE_WAIT_MS = 10 * 60_000;
const REPAIR_POLL_MS = 250;

/** The registry no longer counts on this work (the validation was dispatched again, or is gone): it stops. */
export class ValidationSupersededError extends Error {
  constructor() {
    super('this comparison is no longer the table validation the registry waits for');
    this.name = 'ValidationSupersededError';
  }
}

/** A failure of the warehouse's side, told apart so that its reason names the warehouse; its cause is the failure (for the log). */
class WarehouseSideError extends Error {
  constructor(readonly failure: unknown) {
    super('the warehouse side of a comparison failed', { cause: failure });
    this.name = 'WarehouseSideError';
  }
}

function onWarehouseSide<T>(work: () => Promise<T>): Promise<T> {
  return work().catch((error: unknown) => {
    throw new WarehouseSideError(error);
  });
}

function warehouseSide(checksums: WarehouseChecksums): WarehouseChecksums {
  return {
    openSnapshot: async () => {
      const reader = await onWarehouseSide(() => checksums.openSnapshot());
      const wrapped: ChecksumReader = {
        bucketSums: (buckets, range) => onWarehouseSide(() => reader.bucketSums(buckets, range)),
        integerKeyBounds: () => onWarehouseSide(() => reader.integerKeyBounds()),
        segmentSums: (segments, chosenBuckets, range) => onWarehouseSide(() => reader.segmentSums(segments, chosenBuckets, range)),
        keyDigestsInSegments: (segments, chosen, range) => onWarehouseSide(() => reader.keyDigestsInSegments(segments, chosen, range)),
        digestsOfKeys: (buckets, keys) => onWarehouseSide(() => reader.digestsOfKeys(buckets, keys)),
        close: () => reader.close(),
      };
      return wrapped;
    },
  };
}

/** The result as the registry stores it: keys by column name, words where the counts need them. */
export function resultReport(comparison: TableComparison, definition: TableDefinition): ValidationResultReport {
  const keyOf = (key: readonly (string | null)[]): ValidationFoundKey['key'] => Object.fromEntries(definition.primaryKey.map((name, index) => [name, key[index] ?? null]));
  const whole = comparison.wholeTable;
  const note = whole
    ? whole.checksumsEqual
      ? null
      : `no primary key, so compared as a whole: ${whole.sourceRows} source rows, ${whole.warehouseRows} warehouse rows, ${whole.sourceRows === whole.warehouseRows ? 'the same count but different rows' : 'different counts'}`
    : comparison.tooManyToRecheck
      ? 'more keys differ than are checked again one by one: the counts are those of the first comparison'
      : null;
  return {
    kind: 'result',
    sourceVersion: comparison.sourceVersion,
    rowsCompared: comparison.rowsCompared,
    rowsEstimated: comparison.rowsEstimated,
    missingKeys: comparison.missing,
    extraKeys: comparison.extra,
    differentKeys: comparison.different,
    unsettledKeys: comparison.unsettled,
    differingKeys: comparison.differingKeys.map((found) => ({ key: keyOf(found.key), difference: found.difference })),
    note,
    wholeTableEqual: whole ? whole.checksumsEqual : null,
  };
}

/**
 * Compares one table of a replication with its source (DESIGN, "Validation and repair"): the engines checksum
 * their rows in SQL (compareTable), and this reports progress and the result to the registry, whose reply gives
 * the table's watermark (the comparison waits for it to pass its snapshot).
 */
@Injectable()
export class ValidateService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly requester: NatsRequester,
    private readonly logger: JsonLogger,
    @Inject(WORKER_SHUTDOWN) private readonly shutdown: AbortController,
    @Inject(WORKER_CONFIG) private readonly settings: Pick<WorkerConfig, 'validationMaxRowsPerSecond'>,
  ) {}

  async validate(request: ValidateRequested): Promise<void> {
    const config = await this.configs.configOf(request.replicationId, request.configVersion);
    const source = this.engines.source(config);
    if (source.checksums === undefined) {
      await this.report(request, { kind: 'failed', reason: 'this source engine cannot validate yet', unsupported: true });
      return;
    }
    const described = await source.describeTable(request.table);
    if (!described) {
      await this.report(request, { kind: 'failed', reason: `${tableKey(request.table)} no longer exists in the source`, unsupported: false });
      return;
    }
    const stagedColumns = config.schemaReplication === false ? await this.engines.staging(config).existingColumns(described.table) : null;
    const definition = stagedColumns ? projectOntoColumns(described, stagedColumns) : described;
    const options: WarehouseTableOptions = { schema: config.warehouse.databaseSchema, scdType: config.warehouse.scdType, addUpdateTimestamp: config.addUpdateTimestamp };
    let last: ComparisonProgress | null = null;
    const heartbeat = setInterval(() => {
      if (last) this.report(request, { kind: 'progress', ...last }).catch(() => undefined);
    }, VALIDATION_HEARTBEAT_MS);
    const checksums = source.checksums(definition);
    const compare = () =>
      compareTable(checksums, warehouseSide(this.engines.warehouse(config).checksums(definition, options)), hasPrimaryKey(definition), {
        watermark: async () => (last ? this.progress(request, last) : null),
        progress: async (progress) => {
          last = progress;
          await this.progress(request, progress);
        },
        sleep: (ms) => abortableSleep(ms, this.shutdown.signal),
        now: () => Date.now(),
      }, { ...DEFAULT_COMPARISON_LIMITS, maxRowsPerSecond: this.settings.validationMaxRowsPerSecond });
    try {
      const comparison = await compare();
      if (!request.repair) await this.report(request, resultReport(comparison, definition));
      else await this.repair(request, definition, checksums, comparison, compare, () => last);
    } catch (error) {
      if (error instanceof ValidationSupersededError || error instanceof WorkAbortedError) throw error;
      if (error instanceof ChecksumsUnsupportedError) {
        await this.report(request, { kind: 'failed', reason: error.message, unsupported: true });
        return;
      }
      await this.report(request, { kind: 'failed', reason: this.reasonOf(error, request), unsupported: false });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * RepairReplication: the differing keys are marked changed in the source, so that the table's next change cycle
   * re-reads and applies them (fenced like any cycle: a repair never races one); once the watermark has passed the
   * marks the table is compared again. A table without a key, with more differing keys than REPAIR_MAX_KEYS, or
   * whose source cannot mark keys changed, is reseeded instead (the registry does it on this report).
   */
  private async repair(
    request: ValidateRequested,
    definition: TableDefinition,
    checksums: SourceChecksums,
    first: TableComparison,
    compare: () => Promise<TableComparison>,
    lastProgress: () => ComparisonProgress | null,
  ): Promise<void> {
    const differing = first.missing + first.extra + first.different;
    const whole = first.wholeTable;
    const reseed =
      whole && !whole.checksumsEqual
        ? 'it has no primary key, so its rows cannot be repaired one by one'
        : first.tooManyToRecheck || differing > REPAIR_MAX_KEYS
          ? `validation found ${differing} or more differing keys, more than the ${REPAIR_MAX_KEYS} repaired key by key`
          : checksums.markChanged === undefined && differing > 0
            ? RESEED_WITHOUT_KEY_MARKS
            : null;
    if (reseed !== null || differing === 0 || checksums.markChanged === undefined) {
      await this.report(request, { ...resultReport(first, definition), repair: { keysApplied: 0, reseed } });
      return;
    }
    const applied = await checksums.markChanged(first.allDifferingKeys);
    const progress = lastProgress();
    const deadline = Date.now() + REPAIR_CYCLE_WAIT_MS;
    for (;;) {
      const watermark = await this.progress(request, { phase: 'repair', rowsCompared: progress?.rowsCompared ?? 0, rowsEstimated: progress?.rowsEstimated ?? 0, sourceVersion: first.sourceVersion });
      if (watermark !== null && checksums.compareVersions(watermark, applied) >= 0) break;
      if (Date.now() > deadline) throw new Error(`the change cycle applying the repair did not reach the warehouse within ${REPAIR_CYCLE_WAIT_MS / 60_000} minutes`);
      await abortableSleep(REPAIR_POLL_MS, this.shutdown.signal);
    }
    const second = await compare();
    await this.report(request, { ...resultReport(second, definition), repair: { keysApplied: first.allDifferingKeys.length, reseed: null } });
  }

  /** Reports progress; the table's watermark. Throws when the registry no longer counts on this work. */
  private async progress(request: ValidateRequested, progress: ComparisonProgress): Promise<string | null> {
    const reply = await this.report(request, { kind: 'progress', ...progress });
    if (!reply.current) throw new ValidationSupersededError();
    return reply.watermark;
  }

  private async report(request: ValidateRequested, report: ValidationReportBody): Promise<ValidationReportReply> {
    const { workId, validationId, replicationId, table } = request;
    const reply = await this.requester.request(Subjects.registryValidationReport, { workId, validationId, replicationId, table, report });
    if (!reply.ok) throw new Error(`the registry refused a validation report: ${reply.error.messages.join('; ')}`);
    return reply.value;
  }

  private reasonOf(error: unknown, request: ValidateRequested): string {
    if (error instanceof TableTooBusyError) return error.message;
    const warehouse = error instanceof WarehouseSideError;
    const verdict = classifyFailure(warehouse ? error.failure : error, { endpoint: warehouse ? 'Warehouse' : 'Source', table: tableKey(request.table) });
    // The report carries the classified reason only; the service's log also says what the server said and where.
    this.logger.warn('table validation failed', { replicationId: request.replicationId, validationId: request.validationId, table: tableKey(request.table), ...failureLogFields(error, verdict) });
    return verdict.reason;
  }
}
