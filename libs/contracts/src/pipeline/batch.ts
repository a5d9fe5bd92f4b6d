import { Type, type Static } from '@sinclair/typebox';
import { Count, Flag, PositiveCount, Struct, Text, TextList, Variants } from '../schema/kinds';
import { TableDefinitionSchema } from './table';

/** The first column of every change row: what happened to the key since the last version. */
export const CHANGE_OPERATION_COLUMN = 'svc_op';
export type ChangeOperation = 'I' | 'U' | 'D';

/**
 * A seed part: rows of one consistent snapshot, in parts so that staging and warehouse work while the
 * extractor still reads. Part 0 starts the seed; the part with `final` ends it.
 */
export const SeedBatchSchema = Struct({
  kind: Type.Literal('seed'),
  /** Identifies one snapshot attempt of one table; parts of another seed of the same table are stale. */
  seedId: Text(),
  part: Count(),
  final: Flag(),
  /** The change-tracking version the snapshot starts at (tracking resumes from it). */
  startVersion: Text(),
  /** The source database's incarnation the snapshot was read in (SourceIncarnation), stored with the watermark; absent when unknown. */
  sourceIncarnation: Type.Optional(Text()),
  /**
   * A chunk of a chunked seed: `part` is the chunk's index, every chunk is one batch, and chunks apply in any order, the
   * first to arrive starting the seed; none is `final` (the seed's close ends it).
   */
  chunked: Type.Optional(Flag()),
});
export type SeedBatch = Static<typeof SeedBatchSchema>;

/**
 * Net changes per key with version in [fromVersion, toVersion), rows led by the svc_op column. A backlog over
 * ChangeTrackingBatchLimit is read as several batches of one unit of work, the next read while the last is
 * applied: a batch with `after` follows the batch [after, fromVersion) of its work and is applied after it;
 * `final: false` says more batches of its work follow (absent: the work's last batch).
 */
export const ChangeBatchSchema = Struct({
  kind: Type.Literal('changes'),
  fromVersion: Text(),
  toVersion: Text(),
  after: Type.Optional(Text()),
  final: Type.Optional(Flag()),
  /** The source database's incarnation the changes were read in, stored with the new watermark; absent when unknown. */
  sourceIncarnation: Type.Optional(Text()),
  /**
   * The close of the chunked seed `closesSeed`: the warehouse applies the changes to the seed's shadow, not to the
   * target, and the work's last batch makes the shadow the table's.
   */
  closesSeed: Type.Optional(Struct({ seedId: Text(), chunkCount: PositiveCount() })),
});
export type ChangeBatch = Static<typeof ChangeBatchSchema>;

/**
 * One unit of work on the data path. Its rows are in the row interchange format (row-format.ts,
 * docs/ROW-FORMAT.md): header-less CSV, NULL as an unquoted empty field, an empty string as `""`, columns in the
 * order of `definition.columns` (change rows lead with CHANGE_OPERATION_COLUMN), each field in the text form of
 * its column's portable kind.
 */
export const BatchDescriptorSchema = Struct({
  /** Deterministic: replication, table, versions (or seed id) and part. Applying one twice changes nothing. */
  batchId: Text(),
  replicationId: Text(),
  /** The epoch of the unit of work that read it (ExtractRequested.epoch): a batch of a lower epoch than one applied is stale. */
  epoch: Count(),
  definition: TableDefinitionSchema,
  body: Variants('kind', [SeedBatchSchema, ChangeBatchSchema]),
  /** Copied from ExtractRequested: staging and warehouse connect with this configuration version or a newer one. */
  configVersion: Type.Optional(Count()),
});
export type BatchDescriptor = Static<typeof BatchDescriptorSchema>;

/** One staged file set: header-less gzip CSV parts named by a Redshift-format manifest. */
export const StagedFilesSchema = Struct({
  bucket: Text(),
  manifestKey: Text(),
  partKeys: TextList(),
});
export type StagedFiles = Static<typeof StagedFilesSchema>;
