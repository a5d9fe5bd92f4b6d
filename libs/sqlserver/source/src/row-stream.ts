import { Readable } from 'node:stream';
import type { RowStream } from '@svc/engines';
import type { Request, Transaction } from 'mssql';
import { csvLine, type RowValue } from './csv';
import { unpairedSurrogateInRow, type ReadLayout } from './unpaired-surrogates';

/** CSV bytes gathered before they are handed on: one chunk per many small rows, not one per row. */
const CHUNK_BYTES = 64 * 1024;

export class RowStreamAbandonedError extends Error {
  constructor() {
    super('the row stream was closed before it was read to the end');
    this.name = 'RowStreamAbandonedError';
  }
}

/**
 * Streams a query's rows as CSV, from a request inside an open transaction: rows come as arrays
 * (`arrayRowMode`), the request pauses while the consumer is behind, so memory stays bounded whatever the
 * table's size. Read to the end, the transaction commits; on a failure, or when the consumer stops early,
 * the request is cancelled and the transaction rolled back. `finished` settles once the transaction has
 * ended (its connection is back in the pool) and never goes unhandled.
 *
 * mssql refuses to end a transaction while one of its requests holds the connection (EREQINPROG, and the
 * connection stays with the transaction), and a request holds it until its 'done': even its 'error' events,
 * a cancel's ECANCEL included, come while it still runs. So the transaction ends in 'done', never before.
 *
 * A text with an unpaired surrogate (unpaired-surrogates.ts) fails the read before its row is written: UTF-8 would
 * turn it into U+FFFD.
 */
export function streamRows(transaction: Transaction, request: Request, sql: string, layout: ReadLayout): RowStream {
  request.stream = true;
  request.arrayRowMode = true;
  let rowCount = 0;
  let pending: string[] = [];
  let pendingBytes = 0;
  /** The first failure: a query error, the consumer leaving, a failed commit. */
  let failure: Error | undefined;
  let requestEnded = false;
  let committing = false;
  let committed = false;
  let settle: { resolve: (value: { rowCount: number }) => void; reject: (error: Error) => void } | undefined;
  const finished = new Promise<{ rowCount: number }>((resolve, reject) => {
    settle = { resolve, reject };
  });
  finished.catch(() => undefined);

  const rollbackAndReject = async (error: Error) => {
    await transaction.rollback().catch(() => undefined);
    settle?.reject(error);
  };
  const fail = (error: Error) => {
    // A stream read to its end is destroyed too (autoDestroy): nothing is left to undo.
    if (failure !== undefined || committed) return;
    failure = error;
    if (!rows.destroyed) rows.destroy(error);
    // The request ends with 'done', which rolls back; a commit under way settles `finished` itself.
    if (!requestEnded) request.cancel();
    else if (!committing) void rollbackAndReject(error);
  };
  const flush = (): boolean => {
    if (pending.length === 0) return true;
    const chunk = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingBytes = 0;
    return rows.push(chunk);
  };

  const rows = new Readable({
    read: () => request.resume(),
    destroy: (error, callback) => {
      // Node reports a `for await` left early as an AbortError.
      fail(error === null || error.name === 'AbortError' ? new RowStreamAbandonedError() : error);
      callback(error);
    },
  });
  // A failure can come before anyone reads (the first row refused, a server error while the caller is still setting up):
  // Node emits it as 'error', which without a listener ends the process. The stream keeps it (a later read rejects with
  // it) and `finished` rejects with it, so nothing is lost by listening here.
  rows.on('error', () => undefined);

  request.on('row', (row: RowValue[]) => {
    if (failure !== undefined) return;
    const refused = unpairedSurrogateInRow(layout, row, rowCount + 1);
    if (refused !== null) {
      fail(refused);
      return;
    }
    const line = csvLine(row);
    rowCount += 1;
    pending.push(line);
    pendingBytes += line.length;
    if (pendingBytes >= CHUNK_BYTES && !flush()) request.pause();
  });
  request.on('error', (error: Error) => fail(error));
  request.on('done', () => {
    requestEnded = true;
    if (failure !== undefined) {
      void rollbackAndReject(failure);
      return;
    }
    flush();
    committing = true;
    transaction.commit().then(
      () => {
        committing = false;
        if (failure !== undefined) {
          settle?.reject(failure);
          return;
        }
        committed = true;
        settle?.resolve({ rowCount });
        rows.push(null);
      },
      (error: unknown) => {
        committing = false;
        const commitFailure = failure ?? (error instanceof Error ? error : new Error(String(error)));
        failure ??= commitFailure;
        if (!rows.destroyed) rows.destroy(commitFailure);
        void rollbackAndReject(commitFailure);
      },
    );
  });
  // Stream mode reports through the events above; the promise only repeats them.
  Promise.resolve(request.query(sql)).catch(() => undefined);
  return { rows, finished };
}
