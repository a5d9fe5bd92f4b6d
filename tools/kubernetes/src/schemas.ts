import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from './rendering';

/**
 * Where each API group's models are: Kubernetes' own (kubernetes-models: its OpenAPI schemas), KEDA's and the Prometheus
 * operator's (their CRDs' schemas). Any other group has no schema here, and its objects fail the check.
 */
function modelFile(nodeModules: string, apiVersion: string, kind: string): string | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (version === undefined || !/^v\d+((alpha|beta)\d+)?$/.test(version) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  const packages: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda', 'monitoring.coreos.com': '@kubernetes-models/prometheus-operator' };
  const file =
    group === ''
      ? join(nodeModules, 'kubernetes-models', version, `${kind}.js`)
      : join(nodeModules, packages[group] ?? 'kubernetes-models', group, version, `${kind}.js`);
  return existsSync(file) ? file : undefined;
}

/**
 * Runs in a Node process of its own: the models are ES modules only (kubernetes-models 5), which Jest's module registry
 * cannot load and Node's require can (require(esm), Node 20.19+), by file path since their export map has no `require`.
 * Reads [{file, apiVersion, kind, object}] and writes, for each, null or what the model's validate() threw.
 */
const VALIDATOR = `
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const problems = input.map(({ file, apiVersion, kind, object }) => {
  const Model = require(file)[kind];
  if (!Model || Model.apiVersion !== apiVersion || Model.kind !== kind) return file + ' is not the model of ' + apiVersion + ' ' + kind;
  try { new Model(object).validate(); return null; } catch (error) { return String(error && error.message || error); }
});
process.stdout.write(JSON.stringify(problems));
`;

/**
 * A Secret's data as the API server reads it: kustomize writes a long value as base64 wrapped at 76 columns, which Go's
 * base64 decoder reads across its newlines, while the models' `byte` format admits no newline.
 */
function asServerReads(object: KubernetesObject): KubernetesObject {
  if (object.kind !== 'Secret' || typeof object['data'] !== 'object' || object['data'] === null) return object;
  const data = Object.fromEntries(Object.entries(object['data'] as Record<string, unknown>).map(([key, value]) => [key, typeof value === 'string' ? value.replace(/\n/g, '') : value]));
  return { ...object, data };
}

/** What is wrong with each object by its kind's schema: one line per problem; an object of an unknown kind is one. */
export function schemaProblems(nodeModules: string, objects: readonly KubernetesObject[]): string[] {
  const where = (object: KubernetesObject) => `${object.kind} ${object.metadata.name}`;
  const known = objects.map((object) => ({ object, file: modelFile(nodeModules, object.apiVersion, object.kind) }));
  const unknown = known.filter(({ file }) => file === undefined).map(({ object }) => `${where(object)}: no schema for ${object.apiVersion} ${object.kind} (an unknown kind)`);
  const checked = known.filter((entry): entry is { object: KubernetesObject; file: string } => entry.file !== undefined);
  const input = JSON.stringify(checked.map(({ object, file }) => ({ file, apiVersion: object.apiVersion, kind: object.kind, object: asServerReads(object) })));
  const run = spawnSync(process.execPath, ['--no-warnings', '-e', VALIDATOR], { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`the schema validator failed: ${run.stderr}`);
  const results = JSON.parse(run.stdout) as (string | null)[];
  return [...unknown, ...checked.flatMap(({ object }, index) => (results[index] == null ? [] : [`${where(object)}: ${results[index]}`]))];
}
