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

/** The stored status after an Alter: DataReplication turns the replication on or off; otherwise it is kept. */
export function statusAfterAlter(current: ReplicationStatus, dataReplication: boolean | undefined): ReplicationStatus {
  if (dataReplication === undefined || current === 'Deleting') return current;
  return dataReplication ? 'Running' : 'Stopped';
}
