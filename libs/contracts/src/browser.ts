/**
 * What of the contracts runs in a browser, for the operator console: the API's operations, the shapes of their
 * answers and the configuration's choices. These files import nothing but each other; the console's browser build
 * compiles them with no Node types, so Node cannot slip in (nor can the schema library, which it does not bundle).
 */
export { ACCESS_KEY_OPERATIONS, type AccessKeyOperationName } from './replication/access-key-operations';
export {
  OPERATIONS,
  type ListReplicationsResponse,
  type OperationName,
  type ReplicationDescription,
  type ReplicationMetricsRequest,
  type ReplicationMetricsResponse,
} from './replication/operations';
export { ACCESS_TYPES, RETENTION_PERIODS, SCD_TYPES, SECRET_FIELD_NAMES, SECRET_MASK } from './replication/replication-config';
export { ALERT_STATES } from './replication/replication-status';
export type { AlertRecord, AlertState, TableStatus } from './replication/replication-status';
export {
  FINAL_VALIDATION_STATES,
  type DifferenceKind,
  type RepairValidationResponse,
  type StartValidationResponse,
  type TableValidation,
  type ValidationDescription,
  type ValidationState,
} from './replication/validation';
