import { iamRoleArn } from '@svc/contracts';
import { RoleAssumptionError } from './assumed-role';
import { roleSessionsOf, type RoleSessions } from './role-sessions';
import { S3TargetError, roleOf } from './s3-client';
import type { BucketTarget, S3Settings } from './s3-settings';

/**
 * Whether the service can assume an IAMRole target's role with its ExternalId: null when it can, else what the
 * customer must do, for the field Warehouse\RoleName. A refusal names the principal and the ExternalId the role's
 * trust policy must allow (https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html), so that a
 * customer can learn them from a first Create, trust them, and send the same request again.
 */
export async function roleTrustProblem(target: BucketTarget, settings: S3Settings, roles: RoleSessions = roleSessionsOf(settings)): Promise<string | null> {
  let role;
  try {
    role = roleOf(target);
    await roles.credentials.credentialsOf(role);
    return null;
  } catch (error) {
    if (error instanceof S3TargetError) return error.message;
    if (!(error instanceof RoleAssumptionError)) throw error;
    if (role === undefined) return error.message;
    if (!error.trustRefused) {
      // Not the trust policy's answer: STS could not be asked, or refused for another reason. Say where it was asked.
      return (
        `${error.message}: the service asks STS at STS_ENDPOINT when that setting is set, else the STS of the bucket's region; ` +
        `check that setting and that the service reaches it. The role's trust policy must also allow sts:ExternalId "${role.externalId}" (this access key's for this role)`
      );
    }
    const principal = (await roles.sts.serviceIdentity(role.region)) ?? "the service's AWS identity (S3_ACCESS_KEY_ID or its default credentials)";
    return (
      `the service cannot assume ${iamRoleArn(role, role.region)} (STS: access denied): the role's trust policy must allow ` +
      `Principal ${principal} the action sts:AssumeRole with the Condition StringEquals sts:ExternalId "${role.externalId}" ` +
      '(the ExternalId this access key gets for this role); add it and send the request again'
    );
  }
}
