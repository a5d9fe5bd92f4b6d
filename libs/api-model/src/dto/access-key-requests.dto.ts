import {
  ACCESS_KEY_STATUSES,
  MAX_ROTATION_OVERLAP_MINUTES,
  REPLICATION_SCOPES,
  type AccessKeyIdRequest,
  type AccessKeyScope,
  type AccessKeyStatusChange,
  type CreateAccessKeyOperationRequest,
  type RotateAccessKeyRequest,
  type UpdateAccessKeyRequest,
} from '@svc/contracts';
import { Field } from './decorators';
import { accessKeyId, allowedOperations, expiryOrNever, expiryTimestamp } from '../rules/access-key-rules';
import { integerBetween, oneOf } from '../rules/scalar-rules';
import { textRule } from '../rules/text-rules';

const MAX_DESCRIPTION_LENGTH = 256;

export class CreateAccessKeyDto implements CreateAccessKeyOperationRequest {
  @Field(allowedOperations, 'required') allowedOperations!: string[];
  @Field(oneOf(REPLICATION_SCOPES), 'optional') replicationScope?: AccessKeyScope;
  @Field(expiryTimestamp, 'optional') expiresAt?: string;
  @Field(
    textRule({ check: (text) => (text.length <= MAX_DESCRIPTION_LENGTH ? null : `A description is at most ${MAX_DESCRIPTION_LENGTH} characters`) }),
    'optional',
  )
  description?: string;
}

/** DeleteAccessKey. */
export class AccessKeyIdDto implements AccessKeyIdRequest {
  @Field(accessKeyId, 'required') accessKeyId!: string;
}

export class UpdateAccessKeyDto implements UpdateAccessKeyRequest {
  @Field(accessKeyId, 'required') accessKeyId!: string;
  @Field(oneOf(ACCESS_KEY_STATUSES), { requiredWhen: (request) => request['expiresAt'] === undefined, reason: 'is required unless ExpiresAt is given' })
  status?: AccessKeyStatusChange;
  @Field(expiryOrNever, 'optional') expiresAt?: string;
}

export class RotateAccessKeyDto implements RotateAccessKeyRequest {
  @Field(accessKeyId, 'required') accessKeyId!: string;
  /** 0: the replaced secret stops signing at once. */
  @Field(integerBetween(0, MAX_ROTATION_OVERLAP_MINUTES), 'optional') overlapMinutes?: number;
}
