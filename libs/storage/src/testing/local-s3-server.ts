import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The part of s3rver (an untyped package) that tests use. */
interface S3rverOptions {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  vhostBuckets: boolean;
  configureBuckets: { name: string }[];
}
interface S3rverEvent {
  Records: { eventName: string; s3: { bucket: { name: string }; object: { key: string } } }[];
}
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  on(event: 'event', listener: (event: S3rverEvent) => void): void;
}
type S3rverConstructor = new (options: S3rverOptions) => S3rverInstance;

export interface ObjectEvent {
  /** `ObjectCreated:Put`, `ObjectRemoved:Delete`, … */
  name: string;
  bucket: string;
  key: string;
}

export interface LocalS3Server {
  /** `http://127.0.0.1:<port>`, for S3_ENDPOINT. */
  endpoint: string;
  /** Object writes and deletes seen so far, oldest first. */
  events: ObjectEvent[];
  close(): Promise<void>;
}

/** s3rver's only account: it accepts requests signed with this access key id. */
export const LOCAL_S3_ACCESS_KEY = 'S3RVER';
export const LOCAL_S3_SECRET_KEY = 'S3RVER';

const loadPackage = createRequire(__filename);

/** Starts s3rver on a free port with its data in a fresh temp directory, removed on close. */
export async function startLocalS3Server(buckets: string[] = []): Promise<LocalS3Server> {
  const S3rver = loadPackage('s3rver') as S3rverConstructor;
  const directory = await mkdtemp(join(tmpdir(), 'svc-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const events: ObjectEvent[] = [];
  server.on('event', (event) => {
    for (const record of event.Records) {
      events.push({ name: record.eventName, bucket: record.s3.bucket.name, key: record.s3.object.key });
    }
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    events,
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
