export { redshiftEngine } from './redshift-engine';
export { redshiftErrorKind } from './redshift-errors';
