import type { ReplicationConfig } from '@svc/contracts';
import { redshiftServedByPostgresForTests, type PipelineEngine } from '@svc/engines';
import { RedshiftFileRows, createRedshiftWarehouse, fileRowsLayout, s3CopyLoader, stdinCopyLoader, type CopyAuthorization, type RedshiftWarehouseOptions } from '@svc/redshift/warehouse';
import { redshiftErrorKind } from './redshift-errors';

/** How COPY is authorised: the replication's keys (AccessType=AccessKey) or the role the cluster assumes (IAMRole). */
export function copyAuthorizationOf(warehouse: ReplicationConfig['warehouse']): CopyAuthorization {
  if (warehouse.accessType === 'IAMRole') return { accessType: 'IAMRole', accountId: warehouse.accountId ?? '', roleName: warehouse.roleName ?? '' };
  return { accessType: 'AccessKey', accessKeyId: warehouse.accessKey ?? '', secretAccessKey: warehouse.secretKey ?? '' };
}

/** Redshift as a warehouse (docs/REDSHIFT.md): COPY from the batch files, set-based merges, its own file format. */
export const redshiftEngine: PipelineEngine = {
  displayName: 'Redshift',
  errorKind: redshiftErrorKind,
  openWarehouse: (config, { bareNameSchemas, pool, dial }) => {
    const { url, databaseName, username, password, timeoutInMins, regionEndpoint } = config.warehouse;
    const statementTimeoutMs = timeoutInMins * 60_000;
    const options: RedshiftWarehouseOptions = redshiftServedByPostgresForTests()
      ? { statementTimeoutMs, bareNameSchemas, fileLoader: stdinCopyLoader(), dialect: 'postgres', tls: false }
      : { statementTimeoutMs, bareNameSchemas, fileLoader: s3CopyLoader(copyAuthorizationOf(config.warehouse), regionEndpoint) };
    return createRedshiftWarehouse({ url, databaseName, username, password }, { ...options, ...(pool && { pool }), ...(dial && { dial }) });
  },
  stagedFileRows: (batch) => new RedshiftFileRows(fileRowsLayout(batch)),
};
