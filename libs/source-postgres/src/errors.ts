import { tableKey, type TableRef } from '@svc/contracts';

/** A table without a primary key is seeded, never tracked (seed §1). */
export class PrimaryKeyRequiredError extends Error {
  constructor(table: TableRef) {
    super(`${tableKey(table)} has no primary key: it can be seeded but its changes are not tracked`);
    this.name = 'PrimaryKeyRequiredError';
  }
}

/** The definition handed in no longer matches the table in the source (describe the table again). */
export class StaleDefinitionError extends Error {
  constructor(table: TableRef, detail: string) {
    super(`the definition of ${tableKey(table)} is out of date: ${detail}`);
    this.name = 'StaleDefinitionError';
  }
}

/** Changes of the table are read before tracking was enabled (or after it was disabled). */
export class TableNotTrackedError extends Error {
  constructor(table: TableRef) {
    super(`change tracking is not enabled for ${tableKey(table)}`);
    this.name = 'TableNotTrackedError';
  }
}

/**
 * The watermark is below the table's minimum valid version: changes after it were purged (or were never
 * captured), so the table must be reseeded.
 */
export class ChangesPurgedError extends Error {
  constructor(
    table: TableRef,
    readonly fromVersion: string,
    readonly minValidVersion: string,
  ) {
    super(
      `changes of ${tableKey(table)} from version ${fromVersion} are no longer available ` +
        `(minimum valid version ${minValidVersion}): the table must be reseeded`,
    );
    this.name = 'ChangesPurgedError';
  }
}
