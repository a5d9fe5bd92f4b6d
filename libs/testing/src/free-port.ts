import { createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on right now (the OS just handed it out and it was released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns true or the deadline passes. */
export async function waitUntil(probe: () => Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
}
