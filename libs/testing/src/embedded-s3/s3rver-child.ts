import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface S3rverChildOptions {
  /** Unix socket to listen on; its directory must be one only this user can enter. */
  socketPath: string;
  /** Where the objects are kept. */
  directory: string;
  buckets?: string[];
  startTimeoutMs?: number;
}

export interface S3rverChild {
  close(): Promise<void>;
}

/**
 * s3rver encrypts ListObjectsV2 continuation tokens with DES, which Node 17+ offers only with
 * `--openssl-legacy-provider`, a flag read at process start. So s3rver runs in a child process of its own with that
 * flag (no service and no test process gets it), listening on a Unix socket: nothing reaches it but its front.
 */
const SERVER_SCRIPT = `
const S3rver = require(process.argv[1]);
const [socketPath, directory, buckets] = process.argv.slice(2);
const server = new S3rver({ port: socketPath, directory, silent: true, configureBuckets: JSON.parse(buckets).map((name) => ({ name })) });
server.run().then(() => console.log('listening'), (error) => { console.error(error.message); process.exit(1); });
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
// Its stdin is a pipe from the parent: when that process is gone (even killed), the server goes too.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

export async function startS3rverChild(options: S3rverChildOptions): Promise<S3rverChild> {
  mkdirSync(options.directory, { recursive: true });
  const startTimeoutMs = options.startTimeoutMs ?? 15000;
  const nodeOptions = `${process.env['NODE_OPTIONS'] ?? ''} --openssl-legacy-provider`.trim();
  const child = spawn(
    process.execPath,
    ['-e', SERVER_SCRIPT, require.resolve('s3rver'), options.socketPath, options.directory, JSON.stringify(options.buckets ?? [])],
    { env: { ...process.env, NODE_OPTIONS: nodeOptions }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`s3rver did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`s3rver stopped (exit ${String(code)}): ${stderr.trim()}`));
      });
      createInterface({ input: child.stdout }).once('line', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}
