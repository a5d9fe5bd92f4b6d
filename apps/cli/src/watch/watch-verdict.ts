import type { TablePhase } from '@svc/contracts';
import type { ReplicationSnapshot } from './replication-snapshot';

/** Phases in which a table's seed is over: Untracked tables (no primary key) never reach Tracking. */
const SETTLED_PHASES: readonly string[] = ['Tracking', 'Untracked'] satisfies TablePhase[];
/** The scheduler gives an Error table no more work until StartReplication. */
const FAILED_PHASE: TablePhase = 'Error';

export type WatchVerdict =
  | { kind: 'waiting' }
  | { kind: 'settled' }
  /** `message` is raw server text: escape it before it reaches a terminal. */
  | { kind: 'failed'; message: string };

/** Whether the watch goes on, is done (every table tracking), or ends on a failure. */
export function watchVerdict(snapshot: ReplicationSnapshot): WatchVerdict {
  if (snapshot.status === 'Failed') {
    const reason = snapshot.lastError ?? 'no error recorded';
    return { kind: 'failed', message: `replication ${snapshot.replicationName || snapshot.replicationId} failed: ${reason}` };
  }
  const failedTables = snapshot.tables.filter((table) => table.phase === FAILED_PHASE);
  if (failedTables.length > 0) {
    const [first] = failedTables;
    const others = failedTables.length > 1 ? ` (and ${failedTables.length - 1} more failed tables)` : '';
    return { kind: 'failed', message: `table ${first.name} failed: ${first.lastError ?? 'no error recorded'}${others}` };
  }
  const settled = snapshot.tables.length > 0 && snapshot.tables.every((table) => SETTLED_PHASES.includes(table.phase));
  return settled ? { kind: 'settled' } : { kind: 'waiting' };
}
