import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_S3_ACCOUNT, startSignedS3rver } from '@svc/testing';

export interface ChildS3 {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * s3rver encrypts ListObjectsV2 continuation tokens with DES, which Node 17+ only offers with
 * `--openssl-legacy-provider` — a flag read at process start, so it cannot be turned on inside a running
 * jest process. Tests of paged listings therefore use s3rver in a child process started with it, behind the
 * same SigV4-verifying front as every test server (account TEST_S3_ACCOUNT).
 */
export async function startLegacyOpensslS3(bucket: string): Promise<ChildS3> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-test-s3-child-'));
  const server = await startSignedS3rver({ port: 0, directory, account: TEST_S3_ACCOUNT, buckets: [bucket] }).catch((error: unknown) => {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  });
  return {
    endpoint: server.endpoint,
    stop: () => server.close().finally(() => rmSync(directory, { recursive: true, force: true })),
  };
}
