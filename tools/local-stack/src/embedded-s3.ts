import { Pool } from 'pg';
import { startSignedS3rver, type S3Account } from '@svc/testing';
import { controlDatabaseOwners, freshOnMiss } from './embedded-sts-trust';

export interface EmbeddedS3 {
  close(): Promise<void>;
}

/** The bucket the examples (examples/create-replication.*) name: it exists from the start, as a customer's bucket would. */
export const EXAMPLE_BUCKET = 'svc-demo';

export interface EmbeddedStsSettings {
  /** The control database, whose access keys own the ExternalIds the roles trust. */
  databaseUrl: string;
  /** The master keys the registry issues ExternalIds under (none: no role trusts). */
  masterKeys: Buffer[];
}

/**
 * The embedded S3-compatible server of DESIGN §8: s3rver with its data under `directory`, in a child process of its
 * own (it needs `--openssl-legacy-provider`, which no service gets), reachable only through a front on
 * 127.0.0.1:`port` that verifies each request's AWS Signature Version 4 for `account`, as S3 does. The front also
 * answers STS for `account` (IAMRole replications), trusting the ExternalIds the registry issues.
 */
export async function startEmbeddedS3(port: number, directory: string, account: S3Account, sts: EmbeddedStsSettings): Promise<EmbeddedS3> {
  const pool = new Pool({ connectionString: sts.databaseUrl, max: 2 });
  // An idle client whose server went away must not stop npm start: the next query connects again.
  pool.on('error', () => undefined);
  const trust = freshOnMiss(sts.masterKeys, controlDatabaseOwners(pool));
  const server = await startSignedS3rver({ port, directory, account, buckets: [EXAMPLE_BUCKET], sts: { trust } }).catch(async (error: unknown) => {
    await pool.end();
    throw error;
  });
  return { close: () => server.close().finally(() => pool.end()) };
}
