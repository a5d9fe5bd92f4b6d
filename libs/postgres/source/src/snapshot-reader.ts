import type { TableDefinition } from '@svc/contracts';
import type { ReadOptions, SnapshotRead } from '@svc/engines';
import type { Pool } from 'pg';
import { openTransaction, rollbackAndRelease, streamCopyOut } from '@svc/postgres/common';
import { assertDefinitionCurrent } from './definition-check';
import { readIncarnation } from './incarnation';
import { keyRangeCondition } from './seed-chunks';
import { READ_TRANSACTION_SQL, SNAPSHOT_VERSION_SQL, snapshotCopySql } from './read-sql';

/**
 * Every row of the table in one REPEATABLE READ snapshot, whose xmin is the start version: tracking
 * resumes there and re-reads whatever the snapshot already holds of transactions at or above it, which
 * applying changes makes harmless. Tracking must be enabled before, so that nothing falls between.
 */
export async function readSnapshot(pool: Pool, definition: TableDefinition, options: ReadOptions = {}): Promise<SnapshotRead> {
  const sourceIncarnation = await readIncarnation(pool);
  const client = await openTransaction(pool, READ_TRANSACTION_SQL);
  try {
    const result = await client.query<{ version: string }>(SNAPSHOT_VERSION_SQL);
    const startVersion = result.rows[0]?.version;
    if (startVersion === undefined) throw new Error('the snapshot version query returned no row');
    await assertDefinitionCurrent(client, definition, options);
    const where = options.keyRange === undefined ? null : keyRangeCondition(definition, options.keyRange);
    return { startVersion, sourceIncarnation, ...streamCopyOut(client, snapshotCopySql(definition, where)) };
  } catch (error) {
    await rollbackAndRelease(client);
    throw error;
  }
}
