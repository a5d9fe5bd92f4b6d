import type { ReplicationStatus, ServiceConfiguration } from '@svc/contracts';

/**
 * The status a caller sees. Precedence: Deleting > Failed > Stopped (DataReplication=false, or the whole
 * service stopped) > Running. The stored status is the replication's own; the service flag is folded in here.
 */
export function effectiveStatus(
  replication: { status: ReplicationStatus; dataReplication: boolean },
  service: Pick<ServiceConfiguration, 'serviceStopped'>,
): ReplicationStatus {
  switch (replication.status) {
    case 'Deleting':
    case 'Failed':
      return replication.status;
    case 'Stopped':
      return 'Stopped';
    case 'Running':
      return !replication.dataReplication || service.serviceStopped ? 'Stopped' : 'Running';
  }
}

/**
 * Why a replication moves no data and which call resumes it (Describe and List: StoppedReason), every reason that holds;
 * undefined while it runs, and while it is being deleted (its status says so).
 */
export function stoppedReasonOf(
  replication: { status: ReplicationStatus; dataReplication: boolean },
  service: Pick<ServiceConfiguration, 'serviceStopped'>,
): string | undefined {
  if (replication.status === 'Deleting') return undefined;
  const reasons: string[] = [];
  if (replication.status === 'Failed') reasons.push('it failed (LastError says why): StartReplication with its ReplicationId tries it again');
  if (service.serviceStopped) reasons.push('the replication service is stopped (StopReplicationService): StartReplication without a ReplicationId resumes it');
  if (!replication.dataReplication || replication.status === 'Stopped') {
    reasons.push('DataReplication is false (StopReplication or AlterWarehouseReplication): StartReplication with its ReplicationId resumes it');
  }
  return reasons.length === 0 ? undefined : reasons.join('; ');
}

/** Settings a replication-wide failure can be about: changing one of them is an attempt to fix it. */
const CONNECTION_FIELDS = /^(source\.connectionString|staging\.connectionString|warehouse\.(accessType|accessKey|secretKey|accountId|roleName|bucketName|regionEndpoint|url|databaseName|username|password))$/;

/**
 * The stored status after an Alter: DataReplication turns the replication on or off; a Failed one whose
 * connection settings or credentials change is tried again (a rotated password is the usual fix);
 * otherwise it is kept.
 */
export function statusAfterAlter(current: ReplicationStatus, dataReplication: boolean | undefined, changedFields: string[] = []): ReplicationStatus {
  if (current === 'Deleting') return current;
  if (dataReplication !== undefined) return dataReplication ? 'Running' : 'Stopped';
  if (current === 'Failed' && changedFields.some((field) => CONNECTION_FIELDS.test(field))) return 'Running';
  return current;
}
