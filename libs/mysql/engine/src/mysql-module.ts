import { defineEngine } from '@svc/engines';
import { mysqlAccess, mysqlSourceTypes } from '@svc/mysql/common';
import { mysqlEngine } from './mysql-engine';

/** MySQL and MariaDB (one engine: `mysql://` and `mariadb://`), as the engine list names it. */
export const mysqlModule = defineEngine({
  name: 'mysql',
  displayName: mysqlEngine.displayName,
  roles: ['source', 'staging'],
  connectionStringForms: ['mysql://…', 'mariadb://…'],
  databaseAccess: mysqlAccess,
  pipeline: mysqlEngine,
  defaultSchema: '',
  types: { reads: mysqlSourceTypes },
});
