// Runs before `npm start` builds anything: a second `npm start` must not rebuild dist/ under a running stack.
// Plain JavaScript on purpose, since dist/ does not exist yet on a fresh clone.
import { createConnection } from 'node:net';
import { runningStack } from './running-stack.mjs';

const port = Number(process.env.PORT || 8080);

function portInUse(portNumber) {
  return new Promise((done) => {
    const socket = createConnection({ host: '127.0.0.1', port: portNumber });
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('timeout', () => (socket.destroy(), done(false)));
    socket.once('error', () => done(false));
  });
}

const running = runningStack();
if (running) {
  process.stderr.write(
    `npm start is already running (process ${running.pid}, API at ${running.api}, started ${running.startedAt}).\n` +
      'Use it, or stop it first (Ctrl-C in its terminal) and run npm start again.\n',
  );
  process.exit(1);
}
if (await portInUse(port)) {
  process.stderr.write(
    `Something already listens on 127.0.0.1:${port}, the port npm start's API would take: stop it, or set PORT to another port.\n`,
  );
  process.exit(1);
}
