import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomAlphanumeric } from './object-store-secrets';
import { writeBusSecrets } from './bus-secrets';
import { newComposeSecrets } from './compose-env';
import { kubernetesNatsLayout } from './nats-layout';

/**
 * What deploy/kubernetes's overlays read that only their operator can give (never made here): the control database's
 * URL (env/control-database.env: DATABASE_URL=…), and for the development overlay the S3-compatible store's key pair
 * (env/s3.env: S3_ACCESS_KEY_ID=…, S3_SECRET_ACCESS_KEY=…). Production's S3 identity is the pods' IAM role (IRSA).
 */
export const OPERATOR_PROVIDED_FILES = { all: ['env/control-database.env'], development: ['env/s3.env'] } as const;

/** Where `npm run secrets -- --kubernetes <overlay>` writes in a checkout (git-ignored by deploy/kubernetes/.gitignore). */
export function kubernetesSecretsDir(repoRoot: string, overlay: string): string {
  return join(repoRoot, 'deploy', 'kubernetes', 'overlays', overlay, 'secrets');
}

/**
 * The secrets of one Kubernetes overlay (its own CA, keys and nkeys: a development cluster never shares them with
 * production): the bus as for compose but in the StatefulSet's names (kubernetesNatsLayout), and in place of compose's
 * `.env` the registry's keys (env/registry.env: master key and first access key) and the token Prometheus sends to the
 * gateway's /metrics (env/metrics.env). No MinIO accounts: the cluster's S3 is AWS or the operator's own store.
 */
export function writeKubernetesSecrets(dir: string, gatewayHosts: readonly string[]): string[] {
  const written = writeBusSecrets({ dir, natsNodes: [], gatewayHosts, layout: kubernetesNatsLayout(), objectStore: false });
  const keys = newComposeSecrets();
  const registry = join(dir, 'env', 'registry.env');
  writeFileSync(
    registry,
    [
      '# The job-registry only. Seals every stored secret: losing it loses every replication; keep a copy offline.',
      `SVC_MASTER_KEY=${keys.masterKey}`,
      '# The first access key (allowed everything): sign API calls with it, then make narrower keys.',
      `SVC_BOOTSTRAP_ACCESS_KEY_ID=${keys.bootstrapAccessKeyId}`,
      `SVC_BOOTSTRAP_SECRET_KEY=${keys.bootstrapSecretKey}`,
      '',
    ].join('\n'),
    { mode: 0o600, flag: 'wx' },
  );
  const metrics = join(dir, 'env', 'metrics.env');
  writeFileSync(metrics, ['# The bearer token Prometheus sends to the api-gateway for /metrics (ServiceMonitor).', `METRICS_TOKEN=${randomAlphanumeric(40)}`, ''].join('\n'), {
    mode: 0o600,
    flag: 'wx',
  });
  return [...written, registry, metrics];
}
