import { createHash } from 'node:crypto';
import type { TableDefinition } from '@svc/contracts';
import type { TableEnsured } from '@svc/engines';

/** How long a table ensured here counts as ensured: another process may have changed it (a last line of defence). */
export const ENSURED_TABLE_TTL_MS = 10 * 60_000;
/** Tables remembered at most; the oldest go first. */
const MAX_ENSURED_TABLES = 20_000;

/** What a batch of a table ensured before learns: nothing was created, added or changed. */
const UNCHANGED: TableEnsured = { created: false, addedColumns: [] };

/** What of a definition ensureTable follows: its estimate of rows (which moves with every read) is left out. */
export function definitionShape(definition: TableDefinition): Omit<TableDefinition, 'estimatedRows'> {
  return { table: definition.table, columns: definition.columns, primaryKey: definition.primaryKey };
}

/**
 * The tables this process has ensured (created or brought to a definition) in a database, so that the next batches of the
 * same table, definition and options skip ensureTable for one look at whether the table is still there: one statement
 * instead of about 15 of a small batch's 35 in the warehouse, and of a transaction with the DDL lock in staging
 * (BENCHMARKS.md, "Many tables"). A table gone (its database recreated) is ensured, so found lost, at once; one changed
 * behind the service's back fails its batch, which forgets it (`failed`): the next delivery ensures it again.
 */
export class EnsuredTables {
  private readonly ensuredAt = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The key of a table in one database under one definition and options: a digest (connection strings stay out of memory dumps' plain text). */
  static keyOf(...parts: unknown[]): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  }

  /**
   * `ensure`'s answer, or, for a table ensured here under the same key within ENSURED_TABLE_TTL_MS and still there, "nothing
   * changed". Without `stillThere` the table is trusted to be there: for a group's members, whose one transaction fails
   * on a table gone (the group then goes alone, each member's table ensured again: `failed`), so one look per member is
   * saved.
   */
  async ensure<T extends TableEnsured>(key: string, ensure: () => Promise<T>, stillThere?: () => Promise<boolean>): Promise<T | TableEnsured> {
    const at = this.ensuredAt.get(key);
    if (at !== undefined && this.now() - at < ENSURED_TABLE_TTL_MS && (stillThere === undefined || (await stillThere()))) return UNCHANGED;
    const ensured = await ensure();
    this.ensuredAt.delete(key);
    this.ensuredAt.set(key, this.now());
    if (this.ensuredAt.size > MAX_ENSURED_TABLES) this.ensuredAt.delete(this.ensuredAt.keys().next().value as string);
    return ensured;
  }

  /** A batch of the table failed: the next one ensures it again. */
  failed(key: string): void {
    this.ensuredAt.delete(key);
  }
}
