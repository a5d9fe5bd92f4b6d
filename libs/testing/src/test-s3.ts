import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { startS3SignatureFront } from './embedded-s3/s3-signature-front';
import type { S3Account } from './embedded-s3/s3-signature-check';
import { privateSocketDirectory } from './embedded-s3/signed-s3rver';

/**
 * The one account of the tests' S3 servers. Public like TEST_WORKER_KEY, so that a replication configuration can be
 * written before its server starts; what matters is that requests are verified against it, as S3 does.
 */
export const TEST_S3_ACCOUNT: S3Account = { accessKeyId: 'SVCTESTS3', secretAccessKey: 'svc-test-s3-secret-key-not-for-real-data' };

export interface TestS3Options {
  /** Buckets that exist from the start. */
  buckets?: string[];
}

/** One object write or delete the server handled. */
export interface S3ObjectEvent {
  /** `ObjectCreated:Put`, `ObjectRemoved:Delete`, … */
  name: string;
  bucket: string;
  key: string;
}

export interface TestS3 {
  /** `http://127.0.0.1:<port>`; clients must use path-style addressing. */
  endpoint: string;
  /**
   * The one account the server knows (TEST_S3_ACCOUNT). Like S3, it verifies the AWS Signature Version 4
   * of every request (s3rver does not: it sits behind a verifying front) and refuses anonymous ones.
   */
  accessKeyId: string;
  secretAccessKey: string;
  /** Object writes and deletes seen so far, oldest first. */
  events: S3ObjectEvent[];
  /** Stops the server and removes its data; later calls do nothing, so a test may stop it early. */
  stop(): Promise<void>;
}

/** The record shape of the S3 event notifications s3rver emits. */
interface S3rverNotification {
  Records: { eventName: string; s3: { bucket: { name: string }; object: { key: string } } }[];
}

/** A real S3-compatible server (s3rver) with its own directory, behind a SigV4-verifying front on a free port. */
export async function startTestS3(options: TestS3Options = {}): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-test-s3-'));
  const socketDirectory = privateSocketDirectory();
  const upstreamSocketPath = join(socketDirectory, 's3rver.sock');
  const server = new S3rver({
    port: upstreamSocketPath,
    directory,
    silent: true,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
  });
  const events: S3ObjectEvent[] = [];
  recordObjectEvents(server, events);
  await server.run();
  const front = await startS3SignatureFront({ port: 0, upstreamSocketPath, account: TEST_S3_ACCOUNT });
  let stopped: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${front.port}`,
    ...TEST_S3_ACCOUNT,
    events,
    stop: () => {
      stopped ??= front
        .close()
        .then(() => server.close())
        .then(() => {
          rmSync(directory, { recursive: true, force: true });
          rmSync(socketDirectory, { recursive: true, force: true });
        });
      return stopped;
    },
  };
}

function recordObjectEvents(server: S3rver, events: S3ObjectEvent[]): void {
  // s3rver is a Koa application and so an EventEmitter; its typing (types/s3rver.d.ts) leaves that out.
  if (!(server instanceof EventEmitter)) throw new Error('s3rver no longer emits events');
  server.on('event', (notification: S3rverNotification) => {
    for (const record of notification.Records) {
      events.push({ name: record.eventName, bucket: record.s3.bucket.name, key: record.s3.object.key });
    }
  });
}
