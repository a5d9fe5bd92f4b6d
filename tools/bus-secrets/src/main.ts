import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gatewayNames, writeBusSecrets } from './bus-secrets';
import { writeComposeEnv } from './compose-env';
import { OPERATOR_PROVIDED_FILES, kubernetesSecretsDir, writeKubernetesSecrets } from './kubernetes-secrets';
import { writeObjectStoreSecrets } from './object-store-secrets';
import { secretsOutputs } from './output-paths';

const USAGE = `usage: npm run secrets -- [--out DIR] [--gateway-host NAME]... [--object-store-only | --kubernetes OVERLAY]
Makes deploy/secrets (or DIR) once, for docker-compose.yml: a private CA, TLS certificates for NATS and the
api-gateway, an nkey per service role with its NATS permissions, the worker key, MinIO's root account and the
services' own MinIO user. Refuses to overwrite. --object-store-only adds just the two MinIO files (env/minio.env,
env/s3.env) to secrets made before they existed. --kubernetes OVERLAY makes instead the secrets of
deploy/kubernetes/overlays/OVERLAY (its secrets/ folder, or DIR): the same bus in the StatefulSet's names, the
registry's keys and the metrics token (deploy/kubernetes/README.md).`;

function main(argv: string[]): number {
  const repoRoot = resolve(__dirname, '..', '..', '..', '..');
  const outputs = { ...secretsOutputs(repoRoot), repoRoot };
  let dir = outputs.secretsDir;
  const gatewayHosts: string[] = [];
  let objectStoreOnly = false;
  let overlay: string | undefined;
  let outGiven = false;
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index];
    const value = argv[index + 1];
    if (flag === '--object-store-only') {
      objectStoreOnly = true;
    } else if ((flag === '--out' || flag === '--gateway-host' || flag === '--kubernetes') && value !== undefined && !value.startsWith('--')) {
      if (flag === '--out') [dir, outGiven] = [resolve(value), true];
      else if (flag === '--kubernetes') overlay = value;
      else gatewayHosts.push(value);
      index += 1;
    } else {
      process.stderr.write(`${flag === '--help' ? '' : `unknown or incomplete argument: ${flag ?? ''}\n`}${USAGE}\n`);
      return flag === '--help' ? 0 : 64;
    }
  }
  if (overlay !== undefined) return kubernetes(overlay, outGiven ? dir : kubernetesSecretsDir(outputs.repoRoot, overlay), gatewayHosts);
  if (objectStoreOnly) {
    const files = writeObjectStoreSecrets(join(dir, 'env'));
    process.stdout.write(`Wrote ${files.join(' and ')} (keep them secret). Now: docker compose up -d\n`);
    return 0;
  }
  const written = writeBusSecrets({ dir, natsNodes: ['nats-1', 'nats-2', 'nats-3'], gatewayHosts });
  const composeEnvFile = outputs.composeEnvFile;
  const composeSecrets = writeComposeEnv(composeEnvFile, undefined, gatewayNames(gatewayHosts));
  process.stdout.write(
    [
      `Wrote ${written.length} files under ${dir} (keep this folder secret; it is git-ignored).`,
      composeSecrets === null
        ? `${composeEnvFile} exists and was left as it is: it must set POSTGRES_PASSWORD, SVC_REGISTRY_DB_PASSWORD (add a random one of letters and digits if it is missing), SVC_MASTER_KEY, SVC_BOOTSTRAP_ACCESS_KEY_ID and SVC_BOOTSTRAP_SECRET_KEY.`
        : `Wrote ${composeEnvFile} (owner-only, git-ignored): the PostgreSQL passwords, the master key (keep a copy offline) and the first access key, ` +
          `SVC_ACCESS_KEY_ID=${composeSecrets.bootstrapAccessKeyId} (its secret is in that file).`,
      `The api-gateway's certificate is signed by ${dir}/certs/ca.pem: give that file to clients (svc --ca-file, SVC_CA_FILE).`,
      'Now: docker compose up -d --build',
      '',
    ].join('\n'),
  );
  return 0;
}

function kubernetes(overlay: string, dir: string, gatewayHosts: readonly string[]): number {
  if (!existsSync(dirname(dir))) throw new Error(`${dirname(dir)} does not exist: --kubernetes names an overlay of deploy/kubernetes/overlays`);
  const written = writeKubernetesSecrets(dir, gatewayHosts);
  const provided = [...OPERATOR_PROVIDED_FILES.all, ...(overlay === 'development' ? OPERATOR_PROVIDED_FILES.development : [])];
  process.stdout.write(
    [
      `Wrote ${written.length} files under ${dir} (keep this folder secret; it is git-ignored).`,
      `Before kubectl kustomize: write ${provided.map((file) => `${dir}/${file}`).join(' and ')} (deploy/kubernetes/README.md).`,
      `The api-gateway's certificate is signed by ${dir}/certs/ca.pem: give that file to clients (svc --ca-file, SVC_CA_FILE).`,
      '',
    ].join('\n'),
  );
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
