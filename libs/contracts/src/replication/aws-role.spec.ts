import { awsPartitionOf, iamRoleArn } from './aws-role';

// Partitions and ARN format: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html ("The partition in
// which the resource is located"); which regions each partition holds: the AWS SDK's partition table (regionRegex in
// @aws-sdk/core, util-endpoints/lib/aws/partitions.js).
describe('awsPartitionOf / iamRoleArn', () => {
  it.each([
    ['us-east-1', 'aws'],
    ['eu-central-2', 'aws'],
    ['', 'aws'],
    ['cn-north-1', 'aws-cn'],
    ['cn-northwest-1', 'aws-cn'],
    ['us-gov-west-1', 'aws-us-gov'],
    ['us-gov-east-1', 'aws-us-gov'],
    ['US-GOV-EAST-1', 'aws-us-gov'],
    ['us-iso-east-1', 'aws-iso'],
    ['us-iso-west-1', 'aws-iso'],
    ['us-isob-east-1', 'aws-iso-b'],
    ['eu-isoe-west-1', 'aws-iso-e'],
    ['us-isof-south-1', 'aws-iso-f'],
    ['eusc-de-east-1', 'aws-eusc'],
  ])('%s is in the %s partition', (region, partition) => {
    expect(awsPartitionOf(region)).toBe(partition);
  });

  it('builds the role ARN in that partition, keeping a role path', () => {
    expect(iamRoleArn({ accountId: '123456789012', roleName: 'Loader' }, 'us-west-2')).toBe('arn:aws:iam::123456789012:role/Loader');
    expect(iamRoleArn({ accountId: '123456789012', roleName: 'team/Loader' }, 'cn-north-1')).toBe('arn:aws-cn:iam::123456789012:role/team/Loader');
    expect(iamRoleArn({ accountId: '123456789012', roleName: 'Loader' }, 'us-gov-east-1')).toBe('arn:aws-us-gov:iam::123456789012:role/Loader');
    expect(iamRoleArn({ accountId: '123456789012', roleName: 'Loader' }, 'us-isob-east-1')).toBe('arn:aws-iso-b:iam::123456789012:role/Loader');
  });
});
