import { randomUUID } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  type BucketLocationConstraint,
  type S3Client,
} from '@aws-sdk/client-s3';
import { folderKey, joinKey } from './key-prefix';
import { DEFAULT_S3_REGION, createS3Client, regionOf } from './s3-client';
import { S3_UNREACHABLE_REASON, s3FailureReason } from './s3-failure-reason';
import type { BucketTarget, S3Settings } from './s3-settings';

export const PROBE_KEY_PREFIX = '.svc-probe-';

/**
 * Writes then deletes `<folder>/.svc-probe-<random>`, creating the bucket first when it is missing and
 * creation is allowed (AccessType=AccessKey only). null on success, else a short reason ('access denied', 'bucket does not exist',
 * or S3_UNREACHABLE_REASON for an endpoint not reached in time) that never contains a key.
 */
export async function probeBucket(target: BucketTarget, settings: S3Settings, timeoutMs: number): Promise<string | null> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  let client: S3Client | undefined;
  try {
    client = createS3Client(target, settings);
    await writeAndDeleteProbe(client, target, settings, abort.signal);
    return null;
  } catch (error) {
    return abort.signal.aborted ? S3_UNREACHABLE_REASON : s3FailureReason(error);
  } finally {
    clearTimeout(timer);
    client?.destroy();
  }
}

async function writeAndDeleteProbe(client: S3Client, target: BucketTarget, settings: S3Settings, abortSignal: AbortSignal): Promise<void> {
  const key = joinKey(folderKey(target.bucketFolderName), `${PROBE_KEY_PREFIX}${randomUUID()}`);
  const put = new PutObjectCommand({ Bucket: target.bucketName, Key: key, Body: 'probe', ContentType: 'text/plain' });
  try {
    await client.send(put, { abortSignal });
  } catch (error) {
    if (!isNamed(error, 'NoSuchBucket') || !mayCreateBucket(target, settings)) throw error;
    await createBucket(client, target, abortSignal);
    await client.send(put, { abortSignal });
  }
  await client.send(new DeleteObjectCommand({ Bucket: target.bucketName, Key: key }), { abortSignal });
}

/** Only a bucket reached with the replication's own keys: an IAMRole bucket is the customer's, to create themselves. */
function mayCreateBucket(target: BucketTarget, settings: S3Settings): boolean {
  return settings.allowBucketCreation && target.accessType === 'AccessKey';
}

async function createBucket(client: S3Client, target: BucketTarget, abortSignal: AbortSignal): Promise<void> {
  const region = regionOf(target);
  // us-east-1 is the one region S3 refuses as an explicit LocationConstraint.
  const configuration =
    region === DEFAULT_S3_REGION ? {} : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } };
  try {
    await client.send(new CreateBucketCommand({ Bucket: target.bucketName, ...configuration }), { abortSignal });
  } catch (error) {
    // Someone (a parallel probe) created it in between: the retried write decides.
    if (isNamed(error, 'BucketAlreadyOwnedByYou') || isNamed(error, 'BucketAlreadyExists')) return;
    throw error;
  }
}

function isNamed(error: unknown, name: string): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === name;
}
