import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface ChildS3 {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * s3rver encrypts ListObjectsV2 continuation tokens with DES, which Node 17+ only offers with
 * `--openssl-legacy-provider` — a flag read at process start, so it cannot be turned on inside a running
 * jest process. Tests of paged listings therefore run s3rver in a child process started with it.
 */
const SERVER_SCRIPT = `
const S3rver = require(process.argv[1]);
const server = new S3rver({ port: 0, address: '127.0.0.1', directory: process.argv[2], silent: true, configureBuckets: [{ name: process.argv[3] }] });
server.run().then(({ port }) => console.log(JSON.stringify({ port })), (error) => { console.error(error); process.exit(1); });
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
`;

export async function startLegacyOpensslS3(bucket: string, startTimeoutMs = 15000): Promise<ChildS3> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-test-s3-child-'));
  const nodeOptions = `${process.env['NODE_OPTIONS'] ?? ''} --openssl-legacy-provider`.trim();
  const child = spawn(process.execPath, ['-e', SERVER_SCRIPT, require.resolve('s3rver'), directory, bucket], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const fail = (error: Error): void => {
        clearTimeout(timer);
        reject(error);
      };
      const timer = setTimeout(() => fail(new Error(`s3rver child did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
      child.once('exit', (code) => fail(new Error(`s3rver child exited with ${String(code)}`)));
      createInterface({ input: child.stdout }).once('line', (line) => {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      });
    });
    return { endpoint: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
