import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where packages put nats-server though a user's PATH may lack it (Debian's package: /usr/sbin). */
const USUAL_FOLDERS = ['/usr/sbin', '/usr/local/sbin', '/usr/local/bin', '/opt/homebrew/bin'];

export type NatsServerLookup = { binary: string } | { problem: string };

export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The nats-server npm start runs as its own bus: NATS_SERVER_BIN when set (and then only it), else the first on PATH
 * or in the usual folders. Without one npm start stops rather than fall back to an open server: the ways out are
 * installing it, naming it, or naming a server of the user's own with NATS_URL.
 */
export function findNatsServer(env: Record<string, string | undefined>, isExecutable: (path: string) => boolean = isExecutableFile): NatsServerLookup {
  const configured = env['NATS_SERVER_BIN'] ?? '';
  if (configured !== '') {
    return isExecutable(configured) ? { binary: configured } : { problem: `NATS_SERVER_BIN is ${configured}, which is not an executable file: set it to the path of nats-server` };
  }
  const folders = [...(env['PATH'] ?? '').split(delimiter).filter((folder) => folder !== ''), ...USUAL_FOLDERS];
  const binary = folders.map((folder) => join(folder, 'nats-server')).find((path) => isExecutable(path));
  if (binary !== undefined) return { binary };
  return {
    problem:
      `npm start runs its own NATS server (nats-server with JetStream on 127.0.0.1, a user per service) and found no nats-server on PATH nor in ${USUAL_FOLDERS.join(', ')}. ` +
      'Install it (Debian/Ubuntu: apt install nats-server; macOS: brew install nats-server; or a release from https://github.com/nats-io/nats-server/releases) ' +
      'or set NATS_SERVER_BIN to its path. To use a NATS server of your own instead, set NATS_URL (see README)',
  };
}
