import type { DifferenceKind, DifferingKey, TableValidation, ValidationDescription } from '@svc/contracts';

/**
 * One column of a differing key. Column names are data: in XML they cannot be element names (any character may
 * be in one), so both formats list the columns, and a NULL value is a column without Value, as null fields are.
 */
export interface KeyColumnOnWire {
  name: string;
  value: string | null;
}

export interface DifferingKeyOnWire {
  key: KeyColumnOnWire[];
  difference: DifferenceKind;
}

export type TableValidationOnWire = Omit<TableValidation, 'differingKeys'> & { differingKeys: DifferingKeyOnWire[] };

export type ValidationDescriptionOnWire = Omit<ValidationDescription, 'tables'> & { tables: TableValidationOnWire[] };

/**
 * DescribeReplicationValidation's answer as both formats render it, fields in the order the reference lists them
 * (each written out, so that a field added to the contract does not compile until it is placed here).
 */
export function validationOnWire(description: ValidationDescription): ValidationDescriptionOnWire {
  return {
    replicationId: description.replicationId,
    validationId: description.validationId,
    requestedAt: description.requestedAt,
    scheduled: description.scheduled,
    tables: description.tables.map(tableOnWire),
  };
}

function tableOnWire(table: TableValidation): TableValidationOnWire {
  return {
    name: table.name,
    state: table.state,
    reason: table.reason,
    rowsCompared: table.rowsCompared,
    rowsEstimated: table.rowsEstimated,
    mismatchedKeys: table.mismatchedKeys,
    missingKeys: table.missingKeys,
    extraKeys: table.extraKeys,
    differentKeys: table.differentKeys,
    unsettledKeys: table.unsettledKeys,
    differingKeys: table.differingKeys.map(keyOnWire),
    sourceVersion: table.sourceVersion,
    startedAt: table.startedAt,
    endedAt: table.endedAt,
  };
}

function keyOnWire(differing: DifferingKey): DifferingKeyOnWire {
  return {
    key: Object.entries(differing.key).map(([name, value]) => ({ name, value })),
    difference: differing.difference,
  };
}
