/** Domain error codes shared by every transport; each transport maps them exhaustively. */
export enum ErrorCode {
  /** Malformed or invalid request: field messages `{Group\Field}: reason`. */
  ValidationFailed = 'ValidationFailed',
  /** Authentication or permission failure. */
  Forbidden = 'Forbidden',
  /** Unknown operation or unknown ReplicationId. */
  NotFound = 'NotFound',
  /** The request is valid but conflicts with the replication's state (e.g. it is being deleted). */
  Conflict = 'Conflict',
  /** A dependency (database, NATS) did not answer in time. */
  Unavailable = 'Unavailable',
  Internal = 'Internal',
}

export interface DomainError {
  code: ErrorCode;
  /** Human-readable messages, one per problem; never contains secrets or internals. */
  messages: string[];
}

export type RpcReply<T> = { ok: true; value: T } | { ok: false; error: DomainError };

export function rpcOk<T>(value: T): RpcReply<T> {
  return { ok: true, value };
}

export function rpcError<T = never>(code: ErrorCode, messages: string[]): RpcReply<T> {
  return { ok: false, error: { code, messages } };
}
