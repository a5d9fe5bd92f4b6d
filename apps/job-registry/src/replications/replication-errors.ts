import { ErrorCode, rpcError, type RpcReply } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';

const REPLICATION_ID = fieldLabel(['replicationId']);

export function replicationNotFound<T>(replicationId: string): RpcReply<T> {
  return rpcError(ErrorCode.NotFound, [`${REPLICATION_ID}: replication '${replicationId}' does not exist`]);
}

export function replicationBeingDeleted<T>(replicationId: string): RpcReply<T> {
  return rpcError(ErrorCode.Conflict, [`${REPLICATION_ID}: replication '${replicationId}' is being deleted`]);
}

/** StartReplication of one replication while StopReplicationService holds every one: nothing is changed. */
export function serviceStoppedRefusal<T>(replicationId: string): RpcReply<T> {
  return rpcError(ErrorCode.Conflict, [
    `${REPLICATION_ID}: the replication service is stopped (StopReplicationService), so replication '${replicationId}' would not run; call StartReplication without a ReplicationId to resume the service`,
  ]);
}

export function replicationChangedConcurrently<T>(replicationId: string): RpcReply<T> {
  return rpcError(ErrorCode.Conflict, [
    `${REPLICATION_ID}: replication '${replicationId}' was changed by another request at the same time; send the change again`,
  ]);
}

export function validationFailed<T>(messages: string[]): RpcReply<T> {
  return rpcError(ErrorCode.ValidationFailed, messages);
}
