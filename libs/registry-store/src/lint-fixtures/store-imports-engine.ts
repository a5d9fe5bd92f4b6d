// Deliberate violation (tools/e2e/src/lint-boundaries.integration-spec.ts): the registry store reaches its control
// database through its own helper (control-database.ts), never through an engine library.
import { inTransaction } from '@svc/postgres/common';

export const storeTransaction = inTransaction;
