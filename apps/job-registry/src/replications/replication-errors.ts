import { ErrorCode, rpcError, type RpcReply } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';

const REPLICATION_ID = fieldLabel(['replicationId']);

export function replicationNotFound<T>(replicationId: string): RpcReply<T> {
  return rpcError(ErrorCode.NotFound, [`${REPLICATION_ID}: replication '${replicationId}' does not exist`]);
}

export function replicationBeingDeleted<T>(replicationId: string): RpcReply<T> {
  return rpcError(ErrorCode.Conflict, [`${REPLICATION_ID}: replication '${replicationId}' is being deleted`]);
}

export function replicationChangedConcurrently<T>(replicationId: string): RpcReply<T> {
  return rpcError(ErrorCode.Conflict, [
    `${REPLICATION_ID}: replication '${replicationId}' was changed by another request at the same time; send the change again`,
  ]);
}

export function validationFailed<T>(messages: string[]): RpcReply<T> {
  return rpcError(ErrorCode.ValidationFailed, messages);
}
