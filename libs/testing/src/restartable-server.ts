import type { Server } from 'node:net';

/**
 * Listening, stopping and listening again on the same port of 127.0.0.1: a test double that stops for a while plays a
 * receiver that is down, and clients configured with its address reach it again after the restart.
 */
export class RestartablePort {
  private port = 0;
  private listening = false;

  constructor(
    private readonly server: Server,
    /** Ends the open connections, so that close() does not wait for clients to hang up. */
    private readonly dropConnections: () => void,
  ) {}

  get boundPort(): number {
    return this.port;
  }

  async start(): Promise<void> {
    if (this.listening) return;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('test double has no TCP address');
    this.port = address.port;
    this.listening = true;
  }

  async stop(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.dropConnections();
    });
  }
}
