import { startSignedS3rver, type S3Account } from '@svc/testing';

export interface EmbeddedS3 {
  close(): Promise<void>;
}

/**
 * The embedded S3-compatible server of DESIGN §8: s3rver with its data under `directory`, in a child process of its
 * own (it needs `--openssl-legacy-provider`, which no service gets), reachable only through a front on
 * 127.0.0.1:`port` that verifies each request's AWS Signature Version 4 for `account`, as S3 does.
 */
export function startEmbeddedS3(port: number, directory: string, account: S3Account): Promise<EmbeddedS3> {
  return startSignedS3rver({ port, directory, account });
}
