import type { Pool, PoolClient, QueryResult } from 'pg';

/** A row of SYS_LOAD_ERROR_DETAIL (https://docs.aws.amazon.com/redshift/latest/dg/SYS_LOAD_ERROR_DETAIL.html). */
export interface LoadErrorLogRow {
  query_id: number;
  session_id: number;
  /** character(256): blank-padded as Redshift stores it. */
  file_name: string;
  line_number: number;
  column_name: string;
  column_type: string;
  error_code: number;
  error_message: string;
}

/** A COPY the double refuses, with the row it logs in SYS_LOAD_ERROR_DETAIL. */
export interface RefusedCopy {
  message: string;
  logged: Omit<LoadErrorLogRow, 'session_id' | 'query_id'>;
}

/**
 * A double of one Redshift (Serverless) session, as the documentation describes it, enough for the connector's
 * load of a change batch whose COPY fails:
 * - a failed statement aborts its transaction: until ROLLBACK every statement fails with 25P02 (PostgreSQL's
 *   protocol, which Redshift speaks);
 * - COPY logs its load errors in SYS_LOAD_ERROR_DETAIL under the session's process id, whatever happens to its
 *   transaction (the view "contains both running and finished COPY commands");
 * - PG_LAST_COPY_ID() is not updated by a COPY whose transaction was rolled back: -1 in a session with no other COPY
 *   (https://docs.aws.amazon.com/redshift/latest/dg/PG_LAST_COPY_ID.html);
 * - STL_LOAD_ERRORS does not exist: Serverless has the SYS monitoring views only
 *   (https://docs.aws.amazon.com/redshift/latest/dg/c_intro_system_views.html, "System monitoring (provisioned only)");
 * - a load's stamp (redshift-load-stamp.ts) is one row, the time now in UTC: an aggregate without GROUP BY answers one
 *   row, and GREATEST "ignores" the NULL of a table without a clock (r_GREATEST_LEAST.html).
 * Any other statement succeeds with no rows. Every statement received is kept in `sent`.
 */
export class RedshiftSessionDouble {
  readonly sent: string[] = [];
  readonly loadErrors: LoadErrorLogRow[] = [];
  private aborted = false;
  private inTransaction = false;
  private copyIdOfTransaction: number | null = null;
  private lastCopyId = -1;
  private nextQueryId = 1000;

  constructor(
    readonly pid: number,
    private readonly refuseCopy: RefusedCopy,
  ) {}

  asPool(): Pool {
    const query = (statement: string | { text: string }, values?: unknown[]) => this.query(typeof statement === 'string' ? statement : statement.text, values);
    const client = { query, release: () => undefined } as unknown as PoolClient;
    return { connect: () => Promise.resolve(client), query, end: () => Promise.resolve() } as unknown as Pool;
  }

  query(text: string, values: readonly unknown[] = []): Promise<QueryResult> {
    this.sent.push(text);
    const statement = text.trim().toUpperCase();
    if (statement === 'ROLLBACK') {
      this.aborted = false;
      this.inTransaction = false;
      this.copyIdOfTransaction = null;
      return ok([]);
    }
    if (this.aborted) return failed('25P02', 'current transaction is aborted, commands ignored until end of transaction block');
    if (statement === 'BEGIN') {
      this.inTransaction = true;
      return ok([]);
    }
    if (statement === 'COMMIT') {
      this.inTransaction = false;
      if (this.copyIdOfTransaction !== null) this.lastCopyId = this.copyIdOfTransaction;
      return ok([]);
    }
    if (statement.startsWith('COPY ')) {
      const queryId = (this.nextQueryId += 1);
      this.loadErrors.push({ ...this.refuseCopy.logged, query_id: queryId, session_id: this.pid });
      if (this.inTransaction) this.copyIdOfTransaction = queryId;
      else this.lastCopyId = queryId;
      return this.abort('XX000', this.refuseCopy.message);
    }
    if (/\bSTL_/.test(statement)) return this.abort('42P01', `relation "${/\b(STL_\w+)/.exec(statement)?.[1]?.toLowerCase() ?? 'stl'}" does not exist`);
    if (/\bSYS_LOAD_ERROR_DETAIL\b/.test(statement)) return this.loadErrorDetail(statement, values);
    if (statement.startsWith('SELECT TO_CHAR(GREATEST(SYSDATE, GETDATE()')) return ok([{ stamp: new Date().toISOString().replace('T', ' ').replace('Z', '000') }]);
    return ok([]);
  }

  /** The double reads the two ways a query can pick the rows: by PG_LAST_COPY_ID(), or by session and file name. */
  private loadErrorDetail(statement: string, values: readonly unknown[]): Promise<QueryResult> {
    let rows = this.loadErrors;
    if (statement.includes('PG_LAST_COPY_ID()')) rows = rows.filter((row) => row.query_id === this.lastCopyId);
    if (statement.includes('SESSION_ID = PG_BACKEND_PID()')) rows = rows.filter((row) => row.session_id === this.pid);
    const like = /FILE_NAME LIKE \$(\d)/.exec(statement);
    if (like !== null) rows = rows.filter((row) => likePattern(String(values[Number(like[1]) - 1])).test(row.file_name));
    if (!statement.includes('PG_LAST_COPY_ID()') && like === null) throw new Error(`the double does not know how this query picks its rows: ${statement}`);
    return ok(rows.map((row) => ({ ...row, file_name: row.file_name.trimEnd(), column_name: row.column_name.trim(), column_type: row.column_type.trim(), error_message: row.error_message.trim() })));
  }

  private abort(code: string, message: string): Promise<QueryResult> {
    if (this.inTransaction) this.aborted = true;
    return failed(code, message);
  }
}

/** SQL LIKE with backslash as its escape character, as a regular expression. */
function likePattern(pattern: string): RegExp {
  let source = '';
  for (let at = 0; at < pattern.length; at += 1) {
    const character = pattern[at] ?? '';
    if (character === '\\') source += escapeRegExp(pattern[(at += 1)] ?? '');
    else if (character === '%') source += '.*';
    else if (character === '_') source += '.';
    else source += escapeRegExp(character);
  }
  return new RegExp(`^${source}$`, 's');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function ok(rows: Record<string, unknown>[]): Promise<QueryResult> {
  return Promise.resolve({ rows, rowCount: rows.length, command: '', oid: 0, fields: [] });
}

function failed(code: string, message: string): Promise<QueryResult> {
  return Promise.reject(Object.assign(new Error(message), { code }));
}
