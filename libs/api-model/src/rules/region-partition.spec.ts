import { awsPartitionOf } from '@svc/contracts';
import { regionEndpoint } from './field-rules';

// An ARN names its partition (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html), and a role in
// China, GovCloud or an isolated region has no `arn:aws:` name. Which regions each partition holds: the AWS SDK's
// partition table (regionRegex in @aws-sdk/core, util-endpoints/lib/aws/partitions.js).
describe('Warehouse.RegionEndpoint and the partition of the role ARNs built from it', () => {
  it.each([
    ['us-east-1', 'aws'],
    ['cn-north-1', 'aws-cn'],
    ['cn-northwest-1', 'aws-cn'],
    ['us-gov-west-1', 'aws-us-gov'],
    ['us-gov-east-1', 'aws-us-gov'],
    ['us-iso-east-1', 'aws-iso'],
    ['us-isob-east-1', 'aws-iso-b'],
    ['eu-isoe-west-1', 'aws-iso-e'],
    ['us-isof-south-1', 'aws-iso-f'],
  ])('%s, which the region rule accepts, is in the %s partition', (region, partition) => {
    expect(regionEndpoint.problem(regionEndpoint.coerce(region))).toBeNull();
    expect(awsPartitionOf(region)).toBe(partition);
  });
});
