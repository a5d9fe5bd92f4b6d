import { Type, type Static } from '@sinclair/typebox';
import { Count, OneOf, Struct, Text, Timestamp } from '../schema/kinds';
import { DIFFERENCE_KINDS, type DifferenceKind } from '../replication/validation';
import { TableRefSchema, type TableRef } from './table';

/** Registry → extractor (JetStream work queue): compare one table of a replication with its source. */
export const ValidateRequestedSchema = Struct({
  /** Unique per dispatch of the table's validation; reports name it, so a late report of an earlier dispatch changes nothing. */
  workId: Text(),
  validationId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
  /** The replication's configuration version when the work was issued: workers use no older one. */
  configVersion: Type.Optional(Count()),
  /** RepairReplication: the differing keys are applied again through a change cycle, then the table is compared again. */
  repair: Type.Optional(Type.Boolean()),
  requestedAt: Timestamp(),
});
export type ValidateRequested = Static<typeof ValidateRequestedSchema>;

/** Where a comparison stands, for the table's progress. */
export const VALIDATION_PHASES = ['source', 'warehouse', 'keys', 'recheck', 'repair'] as const;
export type ValidationPhase = (typeof VALIDATION_PHASES)[number];

export interface ValidationProgressReport {
  kind: 'progress';
  phase: ValidationPhase;
  rowsCompared: number;
  rowsEstimated: number;
  sourceVersion: string;
}

export interface ValidationFoundKey {
  /** The key's columns (their source names) and texts. */
  key: Record<string, string | null>;
  difference: DifferenceKind;
}

export interface ValidationResultReport {
  kind: 'result';
  sourceVersion: string;
  rowsCompared: number;
  rowsEstimated: number;
  missingKeys: number;
  extraKeys: number;
  differentKeys: number;
  unsettledKeys: number;
  /** The first differing keys. */
  differingKeys: ValidationFoundKey[];
  /** Set when the result needs words beyond the counts: a table without a key, too many differences to recheck. */
  note: string | null;
  /** A table without a key: whether its row count and checksum agree (its keys' counts are all 0). */
  wholeTableEqual: boolean | null;
  /** A repair's: the keys applied again before this comparison, or why the table is reseeded instead (then nothing was applied). */
  repair?: { keysApplied: number; reseed: string | null };
}

export interface ValidationFailedReport {
  kind: 'failed';
  reason: string;
  /** The engine cannot validate (a Skipped table), rather than a failure worth retrying. */
  unsupported: boolean;
}

export type ValidationReportBody = ValidationProgressReport | ValidationResultReport | ValidationFailedReport;

/** Worker → registry (request/reply): what a table's validation did; the reply says what the worker needs to go on. */
export interface ValidationReportRequest {
  workId: string;
  validationId: string;
  replicationId: string;
  table: TableRef;
  report: ValidationReportBody;
}

export interface ValidationReportReply {
  /** The table's watermark now (the version its next change read starts at); null when it has none. */
  watermark: string | null;
  /** False when this work is no longer the table's validation (cancelled, redispatched, the validation gone): stop. */
  current: boolean;
}

const DifferingKeySchema = Struct({ key: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])), difference: OneOf(DIFFERENCE_KINDS) });

/** Checks the report's shape (the registry does not trust the wire). */
export const ValidationReportRequestSchema = Struct({
  workId: Text(),
  validationId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
  report: Type.Union([
    Struct({ kind: Type.Literal('progress'), phase: OneOf(VALIDATION_PHASES), rowsCompared: Count(), rowsEstimated: Count(), sourceVersion: Text() }),
    Struct({
      kind: Type.Literal('result'),
      sourceVersion: Text(),
      rowsCompared: Count(),
      rowsEstimated: Count(),
      missingKeys: Count(),
      extraKeys: Count(),
      differentKeys: Count(),
      unsettledKeys: Count(),
      differingKeys: Type.Array(DifferingKeySchema),
      note: Type.Union([Type.String(), Type.Null()]),
      wholeTableEqual: Type.Union([Type.Boolean(), Type.Null()]),
      repair: Type.Optional(Struct({ keysApplied: Count(), reseed: Type.Union([Text(), Type.Null()]) })),
    }),
    Struct({ kind: Type.Literal('failed'), reason: Text(), unsupported: Type.Boolean() }),
  ]),
});
