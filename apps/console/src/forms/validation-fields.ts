import type { FieldSpec } from './form-spec.js';

/** StartReplicationValidation's one choice (docs/API.md): which tables to compare. */
export const VALIDATE_FIELDS: readonly FieldSpec[] = [{ path: ['TablesToInclude'], kind: 'text', hint: '[schema].[table], comma-separated; empty or All: every table' }];
