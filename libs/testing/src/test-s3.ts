import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { freePort } from './free-port';

export interface TestS3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

/** A real S3-compatible server (s3rver) on a free port with its own directory. */
export async function startTestS3(): Promise<TestS3> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'svc-test-s3-'));
  const server = new S3rver({ port, address: '127.0.0.1', directory, silent: true });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
