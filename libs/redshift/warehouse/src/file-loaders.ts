import { pipeline } from 'node:stream/promises';
import type { StagedFiles } from '@svc/contracts';
import type { StagedFileReader } from '@svc/engines';
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { redactText } from '@svc/logging';
import { copySql, type CopyAuthorization } from './redshift-copy';
import { copyColumnsOf, RedshiftCopyInput } from './redshift-copy-on-postgres';
import { quoteIdent } from './redshift-identifiers';
import { REDSHIFT_NULL_MARKER } from './null-marker';

/** How a batch's staged files reach a table of the warehouse, inside the load's transaction; the rows loaded. */
export interface StagedFileLoader {
  load(client: ClientBase, table: string, columns: readonly string[], files: StagedFiles, reader: StagedFileReader): Promise<number>;
}

/**
 * A COPY Redshift refused: its message with any credentials redacted; the connector adds what SYS_LOAD_ERROR_DETAIL
 * says of the batch's files (`fileUrlPrefix`) once the transaction rolled back.
 */
export class CopyFailedError extends Error {
  constructor(
    message: string,
    readonly fileUrlPrefix: string,
  ) {
    super(message);
    this.name = 'CopyFailedError';
  }
}

/** Redshift reads the files itself: COPY from the batch's manifest, authorised as Warehouse.AccessType says. */
export function s3CopyLoader(authorization: CopyAuthorization, region: string): StagedFileLoader {
  return {
    async load(client, table, columns, files) {
      const statement = copySql(table, columns, { bucket: files.bucket, manifestKey: files.manifestKey, region }, authorization);
      try {
        await client.query(statement.text);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const message = redactText(error instanceof Error ? error.message : String(error));
        // The SQLSTATE stays, so that the failure is classified like any Redshift error (redshiftErrorKind).
        const failure = new CopyFailedError(message, `s3://${files.bucket}/${commonPrefix([files.manifestKey, ...files.partKeys])}`);
        throw Object.assign(failure, typeof code === 'string' ? { code } : {});
      }
      const counted = await client.query<{ rows: string | number }>('SELECT pg_last_copy_count() AS rows');
      return Number(counted.rows[0]?.rows ?? 0);
    },
  };
}

/**
 * The suite's Redshift-dialect pair on PostgreSQL, which cannot read S3: the same files, read by the loader as
 * Redshift's COPY is documented to read them (redshift-copy-on-postgres.ts: empty non-text fields NULL, only documented
 * date and time forms) and streamed into COPY FROM STDIN (NULL as the marker, values quoted).
 */
export function stdinCopyLoader(): StagedFileLoader {
  return {
    async load(client, table, columns, files, reader) {
      const copy = `COPY ${table} (${columns.map(quoteIdent).join(', ')}) FROM STDIN (FORMAT csv, NULL '${REDSHIFT_NULL_MARKER}')`;
      const copyColumns = await copyColumnsOf(client, table, columns);
      let rowCount = 0;
      for (const key of files.partKeys) {
        // Opened before the COPY: a part that cannot be read must not leave the session in the middle of a COPY.
        const part = await reader.readPart(key);
        const sink = client.query(copyFrom(copy));
        const input = new RedshiftCopyInput(table, copyColumns);
        await pipeline(
          part,
          async function* (chunks: AsyncIterable<Buffer>) {
            for await (const chunk of chunks) yield* input.push(chunk);
            yield* input.end();
          },
          sink,
        );
        rowCount += sink.rowCount;
      }
      return rowCount;
    },
  };
}

/**
 * What SYS_LOAD_ERROR_DETAIL says of the failed COPY, in a few rows, read after the load's transaction rolled back
 * (a failed statement aborts its transaction, and Redshift has no savepoints). Keyed on the session and the batch's
 * files, not on PG_LAST_COPY_ID(), which a COPY whose transaction was rolled back does not update
 * (https://docs.aws.amazon.com/redshift/latest/dg/PG_LAST_COPY_ID.html), and not on STL_LOAD_ERRORS, which
 * Redshift Serverless does not have (https://docs.aws.amazon.com/redshift/latest/dg/c_intro_system_views.html,
 * "System monitoring (provisioned only)"; https://docs.aws.amazon.com/redshift/latest/dg/SYS_LOAD_ERROR_DETAIL.html).
 * $1: the LIKE pattern of the batch's files (loadErrorFilePattern). No value of a row is read.
 */
export const LOAD_ERRORS_SQL = `SELECT line_number, TRIM(column_name) AS column_name, TRIM(column_type) AS column_type, error_code, TRIM(error_message) AS error_message
FROM sys_load_error_detail
WHERE session_id = pg_backend_pid() AND file_name LIKE $1
ORDER BY start_time DESC, line_number
LIMIT 5`;

export interface LoadErrorRow {
  line_number: number | string | null;
  column_name: string | null;
  column_type: string | null;
  error_code: number | string | null;
  error_message: string | null;
}

/** The LIKE pattern of every file under `prefix` (LIKE's own wildcards and its escape character taken literally). */
export function loadErrorFilePattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * The detail appended to a failed COPY's message: line, column, type and error code, and the error's words up to
 * their first comma. Redshift's load errors quote the value after it ("Invalid digit, Value 'x', Pos 0, Type:
 * Integer"): a row's values never reach a failure's detail.
 */
export function loadErrorDetail(rows: readonly LoadErrorRow[]): string {
  if (rows.length === 0) return '';
  const lines = rows.map((row) => {
    const reason = (row.error_message ?? '').split(',')[0]?.trim().slice(0, 100) || 'rejected';
    const type = row.column_type ? ` (${row.column_type})` : '';
    return `line ${String(row.line_number ?? '?')}, column ${row.column_name || '?'}${type}: error ${String(row.error_code ?? '?')} ${reason}`;
  });
  return `; sys_load_error_detail: ${lines.join('; ')}`;
}

/** The longest prefix the keys share: the folder of one batch's files. */
function commonPrefix(keys: readonly string[]): string {
  const [first = '', ...others] = keys;
  let length = first.length;
  for (const key of others) {
    while (length > 0 && key.slice(0, length) !== first.slice(0, length)) length -= 1;
  }
  return first.slice(0, length);
}
