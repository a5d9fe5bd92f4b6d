import type { PipelineEngine } from '@svc/engines';
import { mysqlErrorKind } from '@svc/mysql/common';
import { createMysqlSource } from '@svc/mysql/source';
import { createMysqlStaging } from '@svc/mysql/staging';

/** MySQL and MariaDB as a source (their binary log) and as staging; the warehouse is another engine's role for now. */
export const mysqlEngine: PipelineEngine = {
  displayName: 'MySQL',
  errorKind: mysqlErrorKind,
  openSource: (connectionString, encrypt, pool, dial) => createMysqlSource(connectionString, { encrypt, ...(pool && { pool }), ...(dial && { dial }) }),
  // No rebuild threshold: a change batch is always merged by key (rebuildWithBatch is PostgreSQL's).
  openStaging: (connectionString, encrypt, pool, dial) => createMysqlStaging(connectionString, { encrypt, ...(pool && { pool }), ...(dial && { dial }) }),
};
