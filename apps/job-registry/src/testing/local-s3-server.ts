import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The part of s3rver (an untyped package) the registry's integration test uses. */
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  on(event: 'event', listener: (event: { Records: { eventName: string; s3: { bucket: { name: string } } }[] }) => void): void;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  vhostBuckets: boolean;
}) => S3rverInstance;

export interface LocalS3Server {
  /** `http://127.0.0.1:<port>`, for S3_ENDPOINT. */
  endpoint: string;
  /** `<eventName> <bucket>` of every object write and delete, oldest first. */
  events: string[];
  close(): Promise<void>;
}

/** s3rver accepts requests signed with this key pair only. */
export const LOCAL_S3_KEY = 'S3RVER';

const loadPackage = createRequire(__filename);

/** s3rver on a free port with its data in a fresh temp directory, removed on close. */
export async function startLocalS3Server(): Promise<LocalS3Server> {
  const S3rver = loadPackage('s3rver') as S3rverConstructor;
  const directory = await mkdtemp(join(tmpdir(), 'svc-registry-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, vhostBuckets: false });
  const events: string[] = [];
  server.on('event', (event) => {
    for (const record of event.Records) events.push(`${record.eventName} ${record.s3.bucket.name}`);
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
