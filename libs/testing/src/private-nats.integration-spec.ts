import { createServer, type AddressInfo, type Server } from 'node:net';
import { NatsServerExitedError, NatsServerProcess, natsServerBinary } from './private-nats';

const binary = natsServerBinary();

describe('NatsServerProcess', () => {
  let squatter: Server;
  let port = 0;

  beforeAll(async () => {
    if (!binary) throw new Error('this test needs the nats-server binary (set NATS_SERVER_BIN)');
    // Another process (an S3 double, a test's HTTP server) took the port after it was handed out as free.
    squatter = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((listening) => squatter.listen(0, '127.0.0.1', listening));
    port = (squatter.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((closed) => squatter.close(closed));
  });

  it('is not ready while another process listens on its port: it exits, and start says so', async () => {
    const server = new NatsServerProcess(binary ?? '', ['-a', '127.0.0.1', '-p', String(port)], port);
    await expect(server.start()).rejects.toBeInstanceOf(NatsServerExitedError);
    expect(server.running).toBe(false);
  });

  it('is ready once it says it listens on its own port', async () => {
    const free = await new Promise<number>((handed) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port: freePort } = probe.address() as AddressInfo;
        probe.close(() => handed(freePort));
      });
    });
    const server = new NatsServerProcess(binary ?? '', ['-a', '127.0.0.1', '-p', String(free)], free);
    await server.start();
    try {
      expect(server.running).toBe(true);
    } finally {
      await server.stop();
    }
  });
});
