import type { Pool } from 'pg';
import { SecretBoxError, type SecretBox, type SecretLocation } from '@svc/crypto';
import { accessKeyPreviousSecretAt, accessKeySecretAt, alertTargetSecretsAt, replicationSecretsAt } from './secret-locations';
import { inTransaction } from './control-database';

interface SealedColumn {
  table: string;
  idColumn: string;
  column: string;
  locate(rowId: string): SecretLocation;
}

/** Every column that holds SecretBox-sealed values. */
const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'replications', idColumn: 'id', column: 'secrets', locate: replicationSecretsAt },
  { table: 'access_keys', idColumn: 'access_key_id', column: 'secret', locate: accessKeySecretAt },
  { table: 'access_keys', idColumn: 'access_key_id', column: 'previous_secret', locate: accessKeyPreviousSecretAt },
  { table: 'alert_targets', idColumn: 'name', column: 'secrets', locate: alertTargetSecretsAt },
];

export interface ResealedColumn {
  /** `table.column` */
  column: string;
  /** Values opened: those due for sealing again, or all of them with `openAll`. */
  opened: number;
  resealed: number;
}

export interface ResealOptions {
  /** Open every value, not only those due, to prove each one opens under the configured keys. */
  openAll?: boolean;
}

const LISTED_FAILURES = 10;

export class ResealError extends Error {
  constructor(
    readonly failures: string[],
    /** Key ids that sealed some value and that no configured key has. */
    readonly missingKeyIds: string[],
  ) {
    const listed = failures.slice(0, LISTED_FAILURES);
    const more = failures.length > listed.length ? [`… and ${failures.length - listed.length} more`] : [];
    super(`${failures.length} sealed value(s) cannot be opened, nothing was re-sealed:\n  ${[...listed, ...more].join('\n  ')}`);
    this.name = 'ResealError';
  }
}

/**
 * Seals again, under the current master key and in the current format, every stored value that is in an
 * older format or under a previous key: one transaction, all or nothing, rows locked while it runs. After it,
 * no stored value needs a previous key. Throws ResealError naming each value (and missing key id) that does not open.
 */
export async function resealStoredSecrets(pool: Pool, box: SecretBox, options: ResealOptions = {}): Promise<ResealedColumn[]> {
  return inTransaction(pool, async (client) => {
    const report: ResealedColumn[] = [];
    const failures: string[] = [];
    const missingKeyIds = new Set<string>();
    for (const sealed of SEALED_COLUMNS) {
      const rows = await client.query<{ id: string; value: Buffer }>(
        `SELECT ${sealed.idColumn}::text AS id, ${sealed.column} AS value FROM ${sealed.table} WHERE ${sealed.column} IS NOT NULL ORDER BY 1 FOR UPDATE`,
      );
      const counts: ResealedColumn = { column: `${sealed.table}.${sealed.column}`, opened: 0, resealed: 0 };
      for (const row of rows.rows) {
        const due = box.needsReseal(row.value);
        if (!due && !options.openAll) continue;
        const location = sealed.locate(row.id);
        let plaintext: string;
        try {
          plaintext = box.open(row.value, location);
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          failures.push(error.message);
          if (error.missingKeyId !== undefined) missingKeyIds.add(error.missingKeyId);
          continue;
        }
        counts.opened++;
        if (!due) continue;
        await client.query(`UPDATE ${sealed.table} SET ${sealed.column} = $2 WHERE ${sealed.idColumn} = $1`, [row.id, box.seal(plaintext, location)]);
        counts.resealed++;
      }
      report.push(counts);
    }
    if (failures.length) throw new ResealError(failures, [...missingKeyIds]);
    return report;
  });
}
