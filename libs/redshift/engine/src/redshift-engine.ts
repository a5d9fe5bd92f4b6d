import { sqlStateErrorKind, type PipelineEngine } from '@svc/engines';

/**
 * Redshift as a warehouse: Warehouse.Url is validated and probed at Create and Alter, but no connector loads
 * rows yet. It speaks PostgreSQL's protocol and SQLSTATEs, so its errors are read by SQLSTATE for now.
 */
export const redshiftEngine: PipelineEngine = {
  displayName: 'Redshift',
  errorKind: sqlStateErrorKind,
};
