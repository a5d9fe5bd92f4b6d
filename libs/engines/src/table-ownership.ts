import { EngineError } from './errors';

/** The database a table belongs to, as the replication's request names it. */
export type OwnedTableRole = 'Staging' | 'Warehouse';

/**
 * What an engine knows of one table's ownership, asked inside the transaction (and under the lock) that creates
 * the table or changes its shape: the service writes only into tables it created.
 */
export interface OwnershipLedger {
  /** The service's record of the tables it created names the table. */
  isRecorded(): Promise<boolean>;
  /**
   * Control tables kept before the record existed name the table (its fences or seed records): an earlier
   * version created it and wrote batches into it.
   */
  isNamedByEarlierVersion(): Promise<boolean>;
  /** Records the table as the service's; a table recorded already stays so. */
  record(): Promise<void>;
}

export interface TableClaim {
  role: OwnedTableRole;
  /** `schema.name` as the user knows it, for the reason. */
  displayName: string;
  /** The table exists now (read in the claiming transaction). */
  exists: boolean;
}

/**
 * The one rule every staging and warehouse engine applies before it creates, alters or writes a table: a table
 * about to be created is recorded (in the creating transaction); an existing one is written only when the record
 * names it, or when an earlier version's control tables do (it is adopted: recorded now). Any other existing table
 * is a user's: ForeignTableError, and nothing of it is touched. The record is per table, so replications sharing
 * a staging table (docs/PIPELINE.md) all pass.
 */
export async function claimTable(ledger: OwnershipLedger, claim: TableClaim): Promise<void> {
  if (!claim.exists) return ledger.record();
  if (await ledger.isRecorded()) return;
  if (!(await ledger.isNamedByEarlierVersion())) throw new ForeignTableError(claim.role, claim.displayName);
  await ledger.record();
}

/** A warehouse schema's record of the tables the service created; `table` is a target or its seed shadow. */
export interface WarehouseOwnershipLedger {
  isRecorded(table: string): Promise<boolean>;
  /** Control tables of versions before the record (fences, seed records) name the target. */
  isTargetNamedByEarlierVersion(): Promise<boolean>;
  record(table: string): Promise<void>;
}

/** A warehouse table and its seed shadow, and whether each exists now (read in the claiming transaction). */
export interface WarehouseTablePair {
  schema: string;
  target: string;
  targetExists: boolean;
  shadow: string;
  shadowExists: boolean;
}

/**
 * claimTable for a warehouse table's target and its shadow, both written by the loader. Besides their fences and
 * seed records, earlier versions are known by a target found together with its shadow: they created the two in one
 * transaction, also for a table whose first batch never loaded.
 */
export async function claimWarehouseTables(ledger: WarehouseOwnershipLedger, pair: WarehouseTablePair): Promise<void> {
  const pairExists = pair.targetExists && pair.shadowExists;
  const tables = [
    [pair.target, pair.targetExists],
    [pair.shadow, pair.shadowExists],
  ] as const;
  for (const [table, exists] of tables) {
    const tableLedger: OwnershipLedger = {
      isRecorded: () => ledger.isRecorded(table),
      isNamedByEarlierVersion: async () => pairExists || (await ledger.isTargetNamedByEarlierVersion()),
      record: () => ledger.record(table),
    };
    await claimTable(tableLedger, { role: 'Warehouse', displayName: `${pair.schema}.${table}`, exists });
  }
}

const ADVICE: Record<OwnedTableRole, string> = {
  Staging: 'choose another staging database or schema',
  Warehouse: 'choose another warehouse database or Warehouse.DatabaseSchema',
};

/**
 * A table of the replication's name exists in its staging or warehouse database but the service did not create
 * it: it is not written. Retrying cannot cure this; the table stops until its owner acts (StartReplication then
 * tries it again).
 */
export class ForeignTableError extends EngineError {
  readonly kind = 'foreign-table';

  constructor(role: OwnedTableRole, displayName: string) {
    super(`${role} table ${displayName} exists and was not created by this service: it is not written. Drop or rename it, or ${ADVICE[role]}`);
    this.name = 'ForeignTableError';
  }
}
