import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The part of s3rver (an untyped package) these tests use. */
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  vhostBuckets: boolean;
  configureBuckets: { name: string }[];
}) => { run(): Promise<{ port: number }>; close(): Promise<void> };

export interface LocalS3Server {
  endpoint: string;
  close(): Promise<void>;
}

/** s3rver's only account; it does not verify SigV4 signatures, only that the key id is this one. */
export const LOCAL_S3_KEY = 'S3RVER';

const loadPackage = createRequire(__filename);

/** s3rver on a free port with its data in a temp directory removed on close. */
export async function startLocalS3Server(buckets: string[]): Promise<LocalS3Server> {
  const S3rver = loadPackage('s3rver') as S3rverConstructor;
  const directory = await mkdtemp(join(tmpdir(), 'svc-connectors-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
