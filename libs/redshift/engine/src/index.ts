export { redshiftEngine } from './redshift-engine';
