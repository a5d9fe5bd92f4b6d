import { createServer, type Socket } from 'node:net';

export interface SilentServer {
  port: number;
  stop(): Promise<void>;
}

/** A TCP server on 127.0.0.1 that accepts connections and never says a word: every handshake against it times out. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('silent server has no TCP address');
  return {
    port: address.port,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
