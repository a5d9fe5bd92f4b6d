export { MemoryParts, redshiftOnPostgres } from './redshift-on-postgres-warehouse';
export { RedshiftOnPostgresClient } from '../redshift-on-postgres';
