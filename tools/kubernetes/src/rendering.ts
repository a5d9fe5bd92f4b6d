import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { OPERATOR_PROVIDED_FILES, writeKubernetesSecrets } from '../../bus-secrets/src/kubernetes-secrets';

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** kubectl's own kustomize (no separate binary, no helm, no network). Missing, the manifests cannot be checked: a failure. */
export function kubectlVersion(): string {
  const run = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (run.error !== undefined || run.status !== 0) {
    throw new Error(`kubectl is needed to render deploy/kubernetes (kubectl kustomize) and was not found or failed: ${run.error?.message ?? run.stderr}`);
  }
  return run.stdout.trim();
}

/** `kubectl kustomize <dir>`, parsed: every object it renders. */
export function render(dir: string): KubernetesObject[] {
  const run = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error !== undefined || run.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${run.error?.message ?? run.stderr}`);
  return parseAllDocuments(run.stdout).map((document) => {
    if (document.errors.length > 0) throw new Error(`kubectl kustomize ${dir} rendered YAML that does not parse: ${document.errors.map(String).join('; ')}`);
    return document.toJSON() as KubernetesObject;
  });
}

/** Placeholders for the files only an operator gives (OPERATOR_PROVIDED_FILES), in the keys the README names. */
const OPERATOR_FILE_CONTENT: Record<string, string> = {
  'env/control-database.env': 'DATABASE_URL=postgres://svc_registry:placeholder@control-database.example:5432/svc_registry?sslmode=verify-full\n',
  'env/s3.env': 'S3_ACCESS_KEY_ID=PLACEHOLDERACCESSKEY\nS3_SECRET_ACCESS_KEY=placeholder-secret-access-key\n',
};

/**
 * A copy of deploy/kubernetes in a temporary folder (never a file written into the checkout), each overlay's secrets/
 * made as `npm run secrets -- --kubernetes <overlay>` makes them, plus placeholders for the operator's own files.
 */
export function stagedTree(kubernetesDir: string, overlays: readonly string[]): string {
  const root = join(mkdtempSync(join(tmpdir(), 'svc-kubernetes-')), 'kubernetes');
  // A checkout's own secrets (git-ignored) stay where they are.
  cpSync(kubernetesDir, root, { recursive: true, filter: (source) => basename(source) !== 'secrets' });
  for (const overlay of overlays) {
    const secrets = join(root, 'overlays', overlay, 'secrets');
    writeKubernetesSecrets(secrets, ['replication.example.com']);
    const provided = [...OPERATOR_PROVIDED_FILES.all, ...(overlay === 'development' ? OPERATOR_PROVIDED_FILES.development : [])];
    for (const file of provided) writeFileSync(join(secrets, file), OPERATOR_FILE_CONTENT[file] ?? '', { mode: 0o600 });
  }
  return root;
}
