import type { TableRuntimeState } from '@svc/registry-store';

/**
 * Whether a table's work in flight showed a sign of life (its claim, a worker's heartbeat, a seed part
 * loaded) within `stalledMs`. Only live work holds a serialized replication's slot: a claim nobody works
 * on must not keep every other replication waiting for its timeout.
 */
export function workIsAlive(now: Date, table: Pick<TableRuntimeState, 'inFlightWorkId' | 'inFlightSince' | 'lastProgressAt'>, stalledMs: number): boolean {
  if (table.inFlightWorkId === null) return false;
  const lastSign = latest(table.lastProgressAt, table.inFlightSince);
  return lastSign !== null && now.getTime() - lastSign.getTime() <= stalledMs;
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}
