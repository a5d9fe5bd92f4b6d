import type { TableDefinition } from './table';

/** The first column of every change row: what happened to the key since the last version. */
export const CHANGE_OPERATION_COLUMN = 'svc_op';
export type ChangeOperation = 'I' | 'U' | 'D';

/**
 * A seed part: rows of one consistent snapshot, in parts so that staging and warehouse work while the
 * extractor still reads. Part 0 starts the seed; the part with `final` ends it.
 */
export interface SeedBatch {
  kind: 'seed';
  /** Identifies one snapshot attempt of one table; parts of another seed of the same table are stale. */
  seedId: string;
  part: number;
  final: boolean;
  /** The change-tracking version the snapshot starts at (tracking resumes from it). */
  startVersion: string;
}

/** Net changes per key with version in [fromVersion, toVersion), rows led by the svc_op column. */
export interface ChangeBatch {
  kind: 'changes';
  fromVersion: string;
  toVersion: string;
}

/**
 * One unit of work on the data path. Its rows are CSV text exactly as PostgreSQL's `COPY ... (FORMAT csv)`
 * writes it: no header, NULL as an unquoted empty field, an empty string as `""`, columns in the order of
 * `definition.columns` (change rows lead with CHANGE_OPERATION_COLUMN).
 */
export interface BatchDescriptor {
  /** Deterministic: replication, table, versions (or seed id) and part. Applying one twice changes nothing. */
  batchId: string;
  replicationId: string;
  /** The epoch of the unit of work that read it (ExtractRequested.epoch): a batch of a lower epoch than one applied is stale. */
  epoch: number;
  definition: TableDefinition;
  body: SeedBatch | ChangeBatch;
  /** Copied from ExtractRequested: staging and warehouse connect with this configuration version or a newer one. */
  configVersion?: number;
}

/** One staged file set: header-less gzip CSV parts named by a Redshift-format manifest. */
export interface StagedFiles {
  bucket: string;
  manifestKey: string;
  partKeys: string[];
}
