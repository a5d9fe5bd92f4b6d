import { unwatchFile, watchFile, type StatsListener } from 'node:fs';
import type { SecureContextOptions } from 'node:tls';
import type { JsonLogger } from '@svc/logging';
import type { TlsFilePaths } from '../config/gateway-config';
import { loadTlsCredentials } from './tls-credentials';

/** How often the files' modification times are checked; a stat of two files a second costs nothing. */
const POLL_INTERVAL_MS = 1000;
/**
 * A renewal replaces the certificate and the key one after the other: the reload waits this long after the
 * last change, so that it does not read a new certificate with the old key and warn about a mismatch.
 */
const SETTLE_MS = 300;

export interface SecureContextTarget {
  setSecureContext(options: SecureContextOptions): void;
}

/**
 * Watches the certificate and key files and hands a changed pair to the server, which uses it for new
 * connections. Polling (fs.watchFile) rather than fs.watch: it follows a path whose file is replaced by a
 * rename or a symlink swap (certbot, Kubernetes secret volumes), where an inotify watch stays on the old
 * file. A pair that cannot be used leaves the server on the previous one, with a warning.
 */
export function reloadCertificateOnChange(server: SecureContextTarget, paths: TlsFilePaths, logger: Pick<JsonLogger, 'info' | 'warn'>): { stop(): void } {
  let settleTimer: NodeJS.Timeout | undefined;
  const reload = async (): Promise<void> => {
    try {
      const loaded = await loadTlsCredentials(paths);
      server.setSecureContext(loaded.credentials);
      logger.info('TLS certificate reloaded', { certificate: loaded.certificate });
    } catch (error) {
      logger.warn('TLS certificate files changed but cannot be used; still serving the previous certificate', {
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const onChange: StatsListener = (current, previous) => {
    if (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino && current.size === previous.size) return;
    clearTimeout(settleTimer);
    settleTimer = setTimeout(() => void reload(), SETTLE_MS);
  };
  for (const path of [paths.certFile, paths.keyFile]) watchFile(path, { interval: POLL_INTERVAL_MS, persistent: false }, onChange);
  return {
    stop: () => {
      clearTimeout(settleTimer);
      for (const path of [paths.certFile, paths.keyFile]) unwatchFile(path, onChange);
    },
  };
}
