import { pipeline } from 'node:stream/promises';
import type { StagedFiles } from '@svc/contracts';
import type { StagedFileReader } from '@svc/engines';
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { redactText } from '@svc/logging';
import { copySql, type CopyAuthorization } from './redshift-copy';
import { quoteIdent } from './redshift-identifiers';
import { REDSHIFT_NULL_MARKER } from './null-marker';

/** How a batch's staged files reach a table of the warehouse, inside the load's transaction; the rows loaded. */
export interface StagedFileLoader {
  load(client: ClientBase, table: string, columns: readonly string[], files: StagedFiles, reader: StagedFileReader): Promise<number>;
}

/** A COPY Redshift refused: its message with any credentials redacted; the connector adds what stl_load_errors says. */
export class CopyFailedError extends Error {
  constructor(message: string) {
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
        throw Object.assign(new CopyFailedError(message), typeof code === 'string' ? { code } : {});
      }
      const counted = await client.query<{ rows: string | number }>('SELECT pg_last_copy_count() AS rows');
      return Number(counted.rows[0]?.rows ?? 0);
    },
  };
}

/**
 * The suite's Redshift-dialect pair on PostgreSQL, which cannot read S3: the same files, read by the loader
 * and streamed into COPY FROM STDIN with the same CSV options (NULL as the marker, values quoted).
 */
export function stdinCopyLoader(): StagedFileLoader {
  return {
    async load(client, table, columns, files, reader) {
      const copy = `COPY ${table} (${columns.map(quoteIdent).join(', ')}) FROM STDIN (FORMAT csv, NULL '${REDSHIFT_NULL_MARKER}')`;
      let rowCount = 0;
      for (const key of files.partKeys) {
        const sink = client.query(copyFrom(copy));
        await pipeline(await reader.readPart(key), sink);
        rowCount += sink.rowCount;
      }
      return rowCount;
    },
  };
}

/**
 * What stl_load_errors says about the session's last COPY, in a few lines (column, reason, line, the raw value
 * cut short). Read after the load's transaction rolled back: Redshift has no savepoints, and a failed statement
 * aborts the transaction it ran in.
 */
export const LOAD_ERRORS_SQL = `SELECT TRIM(colname) AS column_name, TRIM(err_reason) AS reason, line_number, TRIM(raw_field_value) AS raw_value
FROM stl_load_errors
WHERE query = pg_last_copy_id()
ORDER BY starttime DESC
LIMIT 5`;

export interface LoadErrorRow {
  column_name: string | null;
  reason: string | null;
  line_number: number | string | null;
  raw_value: string | null;
}

/** The detail appended to a failed COPY's message. */
export function loadErrorDetail(rows: readonly LoadErrorRow[]): string {
  if (rows.length === 0) return '';
  const lines = rows.map((row) => {
    const value = (row.raw_value ?? '').slice(0, 100);
    return `line ${String(row.line_number ?? '?')}, column ${row.column_name ?? '?'}: ${row.reason ?? 'rejected'}${value ? ` (value ${JSON.stringify(value)})` : ''}`;
  });
  return `; stl_load_errors: ${lines.join('; ')}`;
}
