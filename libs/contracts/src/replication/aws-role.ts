/**
 * The AWS partition a region belongs to, and the ARN of a customer's role in it. The partition is part of every
 * ARN: a role in China or GovCloud is `arn:aws-cn:…` or `arn:aws-us-gov:…`, and an `arn:aws:` name for it does not
 * exist (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html).
 */
export type AwsPartition = 'aws' | 'aws-cn' | 'aws-us-gov' | 'aws-iso' | 'aws-iso-b' | 'aws-iso-e' | 'aws-iso-f' | 'aws-eusc';

/**
 * The regions of each partition other than the standard one, as the AWS SDK's own partition table matches them
 * (`regionRegex` in @aws-sdk/core's util-endpoints/lib/aws/partitions.js). The region rule of the API accepts the
 * `us-iso-*`, `us-isob-*`, `eu-isoe-*` and `us-isof-*` regions too, so they need their partition as much as China's.
 */
const PARTITION_REGIONS: readonly (readonly [RegExp, AwsPartition])[] = [
  [/^cn-\w+-\d+$/, 'aws-cn'],
  [/^us-gov-\w+-\d+$/, 'aws-us-gov'],
  [/^us-iso-\w+-\d+$/, 'aws-iso'],
  [/^us-isob-\w+-\d+$/, 'aws-iso-b'],
  [/^eu-isoe-\w+-\d+$/, 'aws-iso-e'],
  [/^us-isof-\w+-\d+$/, 'aws-iso-f'],
  [/^eusc-de-\w+-\d+$/, 'aws-eusc'],
];

/** The partition of `region` (any case); every other region, and none, is in the standard partition. */
export function awsPartitionOf(region: string): AwsPartition {
  const name = region.trim().toLowerCase();
  return PARTITION_REGIONS.find(([pattern]) => pattern.test(name))?.[1] ?? 'aws';
}

/** `arn:<partition>:iam::<AccountId>:role/<RoleName>`; RoleName may carry a path (`team/loader`). */
export function iamRoleArn(role: { accountId: string; roleName: string }, region: string): string {
  return `arn:${awsPartitionOf(region)}:iam::${role.accountId}:role/${role.roleName}`;
}
