import { sqlStateErrorKind, sqlStateOf, type EngineErrorKind } from '@svc/engines';
import { isSerializationConflict } from '@svc/redshift/warehouse';

/**
 * Redshift answers through PostgreSQL's protocol, but many of its own failures come as SQLSTATE XX000
 * (internal error) with a number or a known text in the message: those are read first, then the SQLSTATE.
 * Sources: Redshift's "Serializable isolation violation" (error 1023, under either isolation level: isSerializationConflict),
 * COPY's S3 and load errors, and its disk-full and out-of-memory messages.
 */
const MESSAGE_KINDS: readonly [RegExp, EngineErrorKind][] = [
  // Disk full on a node, out of memory, too many connections, the cluster resizing or restarting.
  [/disk full|out of memory|too many connections|cluster is (being )?(resized|rebooted|restarted)|connection limit/i, 'transient'],
  // COPY could not read the bucket: the key or role lacks s3:GetObject, or the bucket is another account's.
  [/S3ServiceException.*(Access Denied|Forbidden|403)|not authorized to perform: sts:AssumeRole|Invalid credentials|InvalidAccessKeyId|SignatureDoesNotMatch/i, 'permission-denied'],
  // COPY found no file where the manifest says: the batch's files were deleted (retention) or never written.
  [/S3ServiceException.*(NoSuchKey|does not exist)|Manifest file is not in correct json format|mandatory file not found/i, 'object-missing'],
  // A value COPY could not load (sys_load_error_detail, and stl_load_errors on a provisioned cluster, have the row): terminal for the batch.
  [/Load into table .* failed|Check '(stl_load_errors|sys_load_error_detail)'|String length exceeds DDL length|Invalid digit|Overflow/i, 'invalid-data'],
];

/** The kind of a Redshift error; undefined for an error that carries no SQLSTATE, or an internal error of no known kind. */
export function redshiftErrorKind(error: unknown): EngineErrorKind | undefined {
  const state = sqlStateOf(error);
  if (state === undefined) return undefined;
  // Another transaction's concurrent work won: the step runs again.
  if (isSerializationConflict(error)) return 'transient';
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string') {
    const known = MESSAGE_KINDS.find(([pattern]) => pattern.test(message));
    if (known) return known[1];
  }
  // Any other internal error is left unjudged: the pipeline retries it, and bounded redelivery reports one that persists.
  if (state === 'XX000') return undefined;
  return sqlStateErrorKind(error);
}
