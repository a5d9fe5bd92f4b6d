import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface EmbeddedS3 {
  close(): Promise<void>;
}

/**
 * s3rver encrypts ListObjectsV2 continuation tokens with DES, which Node 17+ offers only with
 * `--openssl-legacy-provider`, a flag read at process start. So the embedded server runs in a child process of its
 * own with that flag, and no service gets it (they only talk to the server).
 */
const SERVER_SCRIPT = `
const S3rver = require(process.argv[1]);
const server = new S3rver({ port: Number(process.argv[2]), address: '127.0.0.1', directory: process.argv[3], silent: true });
server.run().then(() => console.log('listening'), (error) => { console.error(error.message); process.exit(1); });
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
// Its stdin is a pipe from npm start: when that process is gone (even killed), the server goes too.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

const START_TIMEOUT_MS = 15000;

/** The embedded S3-compatible server of DESIGN §8 (s3rver), data kept under `directory`. */
export async function startEmbeddedS3(port: number, directory: string): Promise<EmbeddedS3> {
  mkdirSync(directory, { recursive: true });
  const nodeOptions = `${process.env['NODE_OPTIONS'] ?? ''} --openssl-legacy-provider`.trim();
  const child = spawn(process.execPath, ['-e', SERVER_SCRIPT, require.resolve('s3rver'), String(port), directory], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
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
      const timer = setTimeout(() => reject(new Error(`the embedded S3 server did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the embedded S3 server on port ${port} stopped (exit ${String(code)}): ${stderr.trim()}`));
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
