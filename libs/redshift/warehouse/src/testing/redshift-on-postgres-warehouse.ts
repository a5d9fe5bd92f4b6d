import type { CsvChunks, StagedFileReader, WarehouseConnector } from '@svc/engines';
import { stdinCopyLoader } from '../file-loaders';
import { createRedshiftWarehouse, type RedshiftWarehouseOptions } from '../redshift-warehouse';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';

/**
 * The Redshift warehouse connector with dialect 'postgres' on a local PostgreSQL database, its sessions behaving as
 * Redshift where the two differ (redshift-on-postgres.ts), the staged files loaded by COPY FROM STDIN instead of COPY
 * from S3. A double for the integration specs, not a Redshift.
 */
export function redshiftOnPostgres(databaseUrl: string, options: Partial<Pick<RedshiftWarehouseOptions, 'statementTimeoutMs' | 'lockWaitMs' | 'fileLoader'>> = {}): WarehouseConnector {
  const url = new URL(databaseUrl);
  return createRedshiftWarehouse(
    {
      url: `redshift://${url.hostname}:${url.port || '5432'}`,
      databaseName: decodeURIComponent(url.pathname.slice(1)),
      username: decodeURIComponent(url.username || 'postgres'),
      password: decodeURIComponent(url.password),
    },
    { statementTimeoutMs: 30_000, bareNameSchemas: TEST_BARE_NAME_SCHEMAS, fileLoader: stdinCopyLoader(), ...options, dialect: 'postgres', tls: false },
  );
}

/** Staged parts held in memory, served in odd-sized chunks so that readers meet values cut anywhere. */
export class MemoryParts implements StagedFileReader {
  readonly parts = new Map<string, Buffer>();

  put(key: string, content: string | Buffer): void {
    this.parts.set(key, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  }

  readPart(key: string): Promise<CsvChunks> {
    const bytes = this.parts.get(key);
    if (bytes === undefined) return Promise.reject(new Error(`no part ${key}`));
    return Promise.resolve(
      (async function* () {
        for (let at = 0; at < bytes.length; at += 7) yield bytes.subarray(at, at + 7);
      })(),
    );
  }
}
