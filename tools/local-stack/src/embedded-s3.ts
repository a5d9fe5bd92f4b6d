import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

export interface EmbeddedS3 {
  close(): Promise<void>;
}

/** The embedded S3-compatible server of DESIGN §8 (s3rver), data kept under `directory`. */
export async function startEmbeddedS3(port: number, directory: string): Promise<EmbeddedS3> {
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({ port, address: '127.0.0.1', directory, silent: true });
  await server.run();
  return { close: () => server.close() };
}
