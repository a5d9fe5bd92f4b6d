import type {
  DescribeValidationRequest,
  RepairValidationRequest,
  RepairValidationResponse,
  RpcReply,
  StartValidationRequest,
  StartValidationResponse,
  ValidationDescription,
} from '@svc/contracts';
import type { OperationCaller } from './replications.service';

/**
 * StartReplicationValidation, DescribeReplicationValidation and RepairReplication, as the dispatcher hands them over:
 * the request validated and the replication one the caller may act on. Abstract so that it is the injection token the
 * validation service is bound to.
 */
export abstract class ValidationOperations {
  abstract start(request: StartValidationRequest, caller: OperationCaller): Promise<RpcReply<StartValidationResponse>>;
  abstract describe(request: DescribeValidationRequest): Promise<RpcReply<ValidationDescription>>;
  abstract repair(request: RepairValidationRequest, caller: OperationCaller): Promise<RpcReply<RepairValidationResponse>>;
}
