import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Account } from './s3-signature-check';
import { startS3SignatureFront } from './s3-signature-front';
import { startS3rverChild } from './s3rver-child';
import type { EmbeddedStsOptions } from './sts-endpoint';

export interface SignedS3rverOptions {
  /** Port of the front on 127.0.0.1 (0: any free one). */
  port: number;
  /** Where the objects are kept. */
  directory: string;
  account: S3Account;
  buckets?: string[];
  /** Also answer STS for `account` (see S3SignatureFrontOptions.sts). */
  sts?: EmbeddedStsOptions;
  /** The front's clock (default: the system's); tests of session expiry move it. */
  now?: () => Date;
}

export interface SignedS3rver {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/**
 * s3rver (in a child process, see s3rver-child.ts) behind a front that verifies AWS Signature Version 4: the
 * embedded S3 server of `npm start` and the test server of paged listings. s3rver itself accepts anonymous
 * requests, so it listens only on a Unix socket in a directory of mode 0700.
 */
export async function startSignedS3rver(options: SignedS3rverOptions): Promise<SignedS3rver> {
  const socketDirectory = privateSocketDirectory();
  const upstreamSocketPath = join(socketDirectory, 's3rver.sock');
  const removeSockets = (): void => rmSync(socketDirectory, { recursive: true, force: true });
  const child = await startS3rverChild({ socketPath: upstreamSocketPath, directory: options.directory, ...(options.buckets && { buckets: options.buckets }) }).catch(
    (error: unknown) => {
      removeSockets();
      throw error;
    },
  );
  const front = await startS3SignatureFront({ port: options.port, upstreamSocketPath, account: options.account, ...(options.sts && { sts: options.sts }), ...(options.now && { now: options.now }) }).catch(async (error: unknown) => {
    await child.close();
    removeSockets();
    throw error;
  });
  let closed: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${front.port}`,
    port: front.port,
    close: () => {
      closed ??= front
        .close()
        .then(() => child.close())
        .finally(removeSockets);
      return closed;
    },
  };
}

/** mkdtemp creates the directory with mode 0700: other users cannot reach a socket inside it. */
export function privateSocketDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'svc-s3-'));
}
