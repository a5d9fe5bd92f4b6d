import type { PipelineEngine } from '@svc/engines';
import { mysqlErrorKind } from '@svc/mysql/common';
import { createMysqlSource } from '@svc/mysql/source';

/** MySQL and MariaDB as a source (their binary log); staging and the warehouse are other engines' roles for now. */
export const mysqlEngine: PipelineEngine = {
  displayName: 'MySQL',
  errorKind: mysqlErrorKind,
  openSource: (connectionString, encrypt, pool, dial) => createMysqlSource(connectionString, { encrypt, ...(pool && { pool }), ...(dial && { dial }) }),
};
