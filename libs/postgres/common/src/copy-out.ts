import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { RowStream } from '@svc/engines';

export class RowStreamAbandonedError extends Error {
  constructor() {
    super('the row stream was closed before it was read to the end');
    this.name = 'RowStreamAbandonedError';
  }
}

/**
 * Streams a `COPY … TO STDOUT` on a client inside an open transaction. Read to the end, the transaction
 * commits and the client returns to the pool. On a failure, or when the consumer stops early (breaking
 * out of `for await` destroys the stream), the connection is discarded instead: it is mid-COPY and cannot
 * be reused. `finished` then rejects; it never goes unhandled when nobody awaits it.
 */
export function streamCopyOut(client: PoolClient, copySql: string): RowStream {
  const copy = client.query(copyTo(copySql));
  let ended = false;
  let settled = false;
  const finished = new Promise<{ rowCount: number }>((resolve, reject) => {
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      client.release(error);
      reject(error);
    };
    // `on`, not `once`: a discarded connection reports its end to the stream once more. Node reports
    // a `for await` left early as an AbortError.
    copy.on('error', (error: Error) => fail(error.name === 'AbortError' ? new RowStreamAbandonedError() : error));
    copy.once('close', () => {
      if (!ended) fail(new RowStreamAbandonedError());
    });
    copy.once('end', () => {
      ended = true;
      // Queued behind the COPY, so the COPY's row count has arrived when the commit returns.
      client.query('commit').then(
        () => {
          if (settled) return;
          settled = true;
          client.release();
          resolve({ rowCount: copy.rowCount });
        },
        (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
      );
    });
  });
  finished.catch(() => undefined);
  return { rows: copy, finished };
}
