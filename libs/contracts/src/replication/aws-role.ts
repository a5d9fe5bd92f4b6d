/**
 * The AWS partition a region belongs to, and the ARN of a customer's role in it. The partition is part of every
 * ARN: a role in China or GovCloud is `arn:aws-cn:…` or `arn:aws-us-gov:…`, and an `arn:aws:` name for it does not
 * exist (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html).
 */
export type AwsPartition = 'aws' | 'aws-cn' | 'aws-us-gov';

/** `cn-*` regions are aws-cn, `us-gov-*` aws-us-gov, every other region (and none) the standard partition. */
export function awsPartitionOf(region: string): AwsPartition {
  const name = region.trim().toLowerCase();
  if (name.startsWith('cn-')) return 'aws-cn';
  if (name.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/** `arn:<partition>:iam::<AccountId>:role/<RoleName>`; RoleName may carry a path (`team/loader`). */
export function iamRoleArn(role: { accountId: string; roleName: string }, region: string): string {
  return `arn:${awsPartitionOf(region)}:iam::${role.accountId}:role/${role.roleName}`;
}
