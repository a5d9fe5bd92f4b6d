import { mysqlModule } from '@svc/mysql/engine';
import { postgresModule } from '@svc/postgres/engine';
import { redshiftModule } from '@svc/redshift/engine';
import { sqlServerModule } from '@svc/sqlserver/engine';

/**
 * The engines of this build, one line per engine: the only place that names them (docs/ENGINES.md, "Adding an
 * engine"). The order is the order of dispatch: PostgreSQL's driver-error mapper before Redshift's, which reads
 * its own XX000 errors.
 */
export const ENGINES = [
  postgresModule,
  sqlServerModule,
  redshiftModule,
  mysqlModule,
] as const;
