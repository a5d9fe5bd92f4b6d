import { awsPartitionOf, iamRoleArn } from './aws-role';

// Partitions and ARN format: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html
describe('awsPartitionOf / iamRoleArn', () => {
  it.each([
    ['us-east-1', 'aws'],
    ['eu-central-2', 'aws'],
    ['', 'aws'],
    ['cn-north-1', 'aws-cn'],
    ['cn-northwest-1', 'aws-cn'],
    ['us-gov-west-1', 'aws-us-gov'],
    ['US-GOV-EAST-1', 'aws-us-gov'],
  ])('%s is in the %s partition', (region, partition) => {
    expect(awsPartitionOf(region)).toBe(partition);
  });

  it('builds the role ARN in that partition, keeping a role path', () => {
    expect(iamRoleArn({ accountId: '123456789012', roleName: 'Loader' }, 'us-west-2')).toBe('arn:aws:iam::123456789012:role/Loader');
    expect(iamRoleArn({ accountId: '123456789012', roleName: 'team/Loader' }, 'cn-north-1')).toBe('arn:aws-cn:iam::123456789012:role/team/Loader');
    expect(iamRoleArn({ accountId: '123456789012', roleName: 'Loader' }, 'us-gov-east-1')).toBe('arn:aws-us-gov:iam::123456789012:role/Loader');
  });
});
