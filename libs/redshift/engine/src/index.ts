export { redshiftEngine } from './redshift-engine';
export { redshiftErrorKind } from './redshift-errors';
export { redshiftModule } from './redshift-module';
