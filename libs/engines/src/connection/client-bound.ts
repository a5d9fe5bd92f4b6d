/**
 * How long a client waits for the answer to one statement the server bounds by `statementTimeoutMs`: a little
 * longer, so that a server that answers reports its own timeout first (PostgreSQL and Redshift: SQLSTATE 57014),
 * and a server that no longer answers (a connection a network element dropped, a cluster gone) fails the
 * statement anyway instead of leaving the work, its heartbeat and the server's locks alive forever.
 */
export function clientBoundMs(statementTimeoutMs: number): number {
  return statementTimeoutMs + Math.min(60_000, Math.max(1_000, Math.round(statementTimeoutMs / 10)));
}

/**
 * node-postgres's error for a statement whose answer did not come within its query_timeout
 * (node_modules/pg/lib/client.js: `new Error('Query read timeout')`). The statement may still run on the server, or
 * the connection is dead: the connection is discarded, never rolled back and reused (its next statement would
 * queue behind the one that got no answer).
 */
export function isClientQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}
