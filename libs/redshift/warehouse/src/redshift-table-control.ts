import { catalogName, fitIdentifier, qualifiedName } from './redshift-identifiers';
import type { RedshiftLayout } from './redshift-layout';
import { ControlTables, loadTime, type SqlDialect } from './redshift-sql';

/**
 * Each warehouse table's own control table: its epoch fences (one row per replication), the seed its shadow collects,
 * the batches loaded into it and the stamp of its last load (redshift-load-stamp.ts). A load locks it and nothing of
 * the schema's (docs/REDSHIFT.md, "Locks"):
 *
 * Redshift has table locks only, and LOCK takes one in ACCESS EXCLUSIVE mode that "causes reads and writes on the table
 * to wait" (https://docs.aws.amazon.com/redshift/latest/dg/r_LOCK.html). Two transactions that both read and write one
 * table, unless one waits for the other, fail one another with a serializable isolation violation (1023) under
 * SERIALIZABLE isolation, and under SNAPSHOT isolation, the default of clusters created since May 2024, may both commit
 * what each decided from a snapshot without the other's rows (two current versions of one key). So a load first LOCKs
 * this table (serialising the loads of its table only) before any statement that takes its snapshot ("A database
 * snapshot is created within a transaction on the first occurrence of most SELECT statements, DML commands ... and
 * the following DDL commands", https://docs.aws.amazon.com/redshift/latest/dg/c_serial_isolation.html; LOCK is none of
 * them), so it reads what the load before it committed under either level; then it reads and writes its rows, its
 * shadow and its target; of the schema's shared tables it only appends to the batch log (a write no load reads: no
 * cycle between two loads). Loads of two tables of one schema never wait on each other, and a read of one table's
 * control rows waits only for a load of that table.
 *
 * Global lock order: (1) a table's control table; (2) the schema's DDL lock (svc_sys_table_fences), taken by
 * ensureTable only, never by a load; (3) the table's shadow and target, by the statements that write them. A control
 * table is made under (2) before any load can take it (1). Every LOCK waits under a bound of its own (lockWaitMs),
 * not the load's statement timeout.
 */
export const TableControlKinds = { fence: 'fence', seed: 'seed', batch: 'batch', clock: 'clock' } as const;

const FENCE = `'${TableControlKinds.fence}'`;
const SEED = `'${TableControlKinds.seed}'`;
const BATCH = `'${TableControlKinds.batch}'`;

/**
 * The control table's name: the service's prefix and the target's name as Redshift's catalog holds it (so "Orders" and
 * "orders", one table in Redshift, have one control table also where names keep their case), cut to 127 bytes.
 */
export function tableControlName(target: string): string {
  return fitIdentifier(`svc_sys_ctl_${catalogName(target)}`);
}

export function qualifiedTableControl(layout: RedshiftLayout): string {
  return qualifiedName(layout.schema, tableControlName(layout.target));
}

/** `subject` is the replication of a fence, empty for the seed, the batch id of a batch. */
export function createTableControlSql(layout: RedshiftLayout): string {
  return `CREATE TABLE IF NOT EXISTS ${qualifiedTableControl(layout)} (
  kind VARCHAR(8) NOT NULL,
  subject VARCHAR(4096) NOT NULL,
  epoch BIGINT,
  seed_id VARCHAR(1024),
  recorded_at TIMESTAMP NOT NULL
)`;
}

/**
 * $1 target: the fences and seed record that versions before per-table control tables kept in the schema's shared
 * tables, copied into the control table made just now (under the schema's DDL lock, before any load can use it).
 */
export function adoptSharedControlSql(layout: RedshiftLayout, dialect: SqlDialect = 'redshift'): string[] {
  const table = qualifiedTableControl(layout);
  return [
    `INSERT INTO ${table} (kind, subject, epoch, recorded_at)
SELECT ${FENCE}, replication_id, epoch, ${loadTime(dialect)} FROM ${qualifiedName(layout.schema, ControlTables.tableFences)} WHERE table_name = $1`,
    `INSERT INTO ${table} (kind, subject, seed_id, recorded_at)
SELECT ${SEED}, '', seed_id, ${loadTime(dialect)} FROM ${qualifiedName(layout.schema, ControlTables.tableSeeds)} WHERE table_name = $1`,
  ];
}

/** The first statement of every load of the table, held to the end of its transaction. */
export function lockTableControlSql(layout: RedshiftLayout): string {
  return `LOCK ${qualifiedTableControl(layout)}`;
}

/** $1 replication: the table's fence; no row before its first batch. */
export function fenceEpochSql(layout: RedshiftLayout): string {
  return `SELECT epoch FROM ${qualifiedTableControl(layout)} WHERE kind = ${FENCE} AND subject = $1`;
}

/** $1 replication, $2 epoch: raises an existing fence (the caller checked it is not above the epoch). */
export function raiseFenceSql(layout: RedshiftLayout): string {
  return `UPDATE ${qualifiedTableControl(layout)} SET epoch = $2 WHERE kind = ${FENCE} AND subject = $1`;
}

/** $1 replication, $2 epoch: the table's first fence. */
export function insertFenceSql(layout: RedshiftLayout, dialect: SqlDialect = 'redshift'): string {
  return `INSERT INTO ${qualifiedTableControl(layout)} (kind, subject, epoch, recorded_at) VALUES (${FENCE}, $1, $2, ${loadTime(dialect)})`;
}

/** $1 batch id: one row when it was loaded into the table. */
export function tableBatchLoadedSql(layout: RedshiftLayout): string {
  return `SELECT 1 AS loaded FROM ${qualifiedTableControl(layout)} WHERE kind = ${BATCH} AND subject = $1`;
}

/** $1 batch id: the table's record of it (the schema's batch log gets its own, recordBatchSql). */
export function recordTableBatchSql(layout: RedshiftLayout, dialect: SqlDialect = 'redshift'): string {
  return `INSERT INTO ${qualifiedTableControl(layout)} (kind, subject, recorded_at) VALUES (${BATCH}, $1, ${loadTime(dialect)})`;
}

/** $1 loaded before: forgets the table's batches that can no longer arrive again. */
export function forgetTableBatchesSql(schema: string, controlTable: string): string {
  return `DELETE FROM ${qualifiedName(schema, controlTable)} WHERE kind = ${BATCH} AND recorded_at < $1`;
}

/** The seed the table's shadow collects. */
export function currentSeedSql(layout: RedshiftLayout): string {
  return `SELECT seed_id FROM ${qualifiedTableControl(layout)} WHERE kind = ${SEED}`;
}

/** $1 seed id: the table's seed starts (no upsert in Redshift: the old record goes first). */
export function recordSeedStartSql(layout: RedshiftLayout, dialect: SqlDialect = 'redshift'): string[] {
  const table = qualifiedTableControl(layout);
  return [`DELETE FROM ${table} WHERE kind = ${SEED}`, `INSERT INTO ${table} (kind, subject, seed_id, recorded_at) VALUES (${SEED}, '', $1, ${loadTime(dialect)})`];
}

/** $1 schema: the control tables of the schema's tables, as the catalog names them. */
export const TABLE_CONTROLS_SQL = `SELECT table_name::VARCHAR(128) AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'svc!_sys!_ctl!_%' ESCAPE '!'`;
