export { inTransaction } from '@svc/postgres-common';
