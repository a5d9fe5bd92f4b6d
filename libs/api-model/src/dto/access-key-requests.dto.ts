import {
  ACCESS_KEY_STATUSES,
  DEFAULT_ROTATION_OVERLAP_MINUTES,
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
const DESCRIPTION_RULE = `A description is at most ${MAX_DESCRIPTION_LENGTH} characters`;

export class CreateAccessKeyDto implements CreateAccessKeyOperationRequest {
  @Field(allowedOperations, 'required', { note: 'The operations the new key may call, within the calling key\'s own' })
  allowedOperations!: string[];
  @Field(oneOf(REPLICATION_SCOPES), 'optional', { default: 'Own', note: 'Own: the replications the key creates; All: every replication and the service-wide operations' })
  replicationScope?: AccessKeyScope;
  @Field(expiryTimestamp, 'optional', { default: 'the key never expires' }) expiresAt?: string;
  @Field(
    textRule({ check: (text) => (text.length <= MAX_DESCRIPTION_LENGTH ? null : DESCRIPTION_RULE), rule: DESCRIPTION_RULE }),
    'optional',
    { default: 'empty' },
  )
  description?: string;
}

/** DeleteAccessKey. */
export class AccessKeyIdDto implements AccessKeyIdRequest {
  @Field(accessKeyId, 'required') accessKeyId!: string;
}

export class UpdateAccessKeyDto implements UpdateAccessKeyRequest {
  @Field(accessKeyId, 'required') accessKeyId!: string;
  @Field(
    oneOf(ACCESS_KEY_STATUSES),
    { requiredWhen: (request) => request['expiresAt'] === undefined, reason: 'is required unless ExpiresAt is given' },
    { default: 'unchanged' },
  )
  status?: AccessKeyStatusChange;
  @Field(expiryOrNever, 'optional', { default: 'unchanged' }) expiresAt?: string;
}

export class RotateAccessKeyDto implements RotateAccessKeyRequest {
  @Field(accessKeyId, 'required') accessKeyId!: string;
  /** 0: the replaced secret stops signing at once. */
  @Field(integerBetween(0, MAX_ROTATION_OVERLAP_MINUTES), 'optional', {
    default: String(DEFAULT_ROTATION_OVERLAP_MINUTES),
    note: 'Minutes the replaced secret still signs; 0 ends it at once',
  })
  overlapMinutes?: number;
}
