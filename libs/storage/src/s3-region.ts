import type { BucketTarget } from './s3-settings';

export const DEFAULT_S3_REGION = 'us-east-1';

/** Warehouse.RegionEndpoint, or us-east-1 when it is empty. */
export function regionOf(target: Pick<BucketTarget, 'regionEndpoint'>): string {
  const region = target.regionEndpoint.trim();
  return region === '' ? DEFAULT_S3_REGION : region;
}
