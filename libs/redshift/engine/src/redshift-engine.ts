import type { PipelineEngine } from '@svc/engines';
import { redshiftErrorKind } from './redshift-errors';

/**
 * Redshift as a warehouse: Warehouse.Url is validated and probed at Create and Alter and its errors are
 * understood (redshift-errors.ts), but no connector loads rows yet (libs/redshift/warehouse, issue 11).
 */
export const redshiftEngine: PipelineEngine = {
  displayName: 'Redshift',
  errorKind: redshiftErrorKind,
};
