import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readmeSetting, readmeSettings } from './readme-settings';

const repoRoot = join(__dirname, '..', '..', '..');
/** Settings read only by tests and test hooks, never by a user. */
const NOT_FOR_USERS = /^SVC_TEST_HOOK_/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'testing' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.includes('.spec.') && !name.includes('integration-spec') ? [path] : [];
  });
}

/** Every name a service's EnvReader reads (`env.int('NAME'`, `env.string('NAME'`, …). */
function settingsRead(): string[] {
  const names = new Set<string>();
  for (const file of [...sourceFiles(join(repoRoot, 'apps')), ...sourceFiles(join(repoRoot, 'libs'))]) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\benv\.[a-zA-Z]+\(\s*'([A-Z][A-Z0-9_]+)'/g)) names.add(match[1] ?? '');
  }
  return [...names].filter((name) => !NOT_FOR_USERS.test(name)).sort();
}

/** Issue 20: WORKER_CONCURRENCY, SEED_PART_MB and others were read by the services but missing from the README. */
describe("the README's configuration table", () => {
  const table = readmeSettings(readFileSync(join(repoRoot, 'README.md'), 'utf8'));

  it('names every setting a service reads', () => {
    const read = settingsRead();
    expect(read.length).toBeGreaterThan(20);
    expect(read.filter((name) => readmeSetting(table, name) === undefined)).toEqual([]);
  });

  it('says which services read each setting, and a setting given as a file is its own name', () => {
    expect(readmeSetting(table, 'PROBE_PORT')?.usedBy).toEqual(['job-registry', 'extractor', 'stager', 'loader']);
    expect(readmeSetting(table, 'S3_ENDPOINT')?.usedBy).toEqual(['job-registry', 'extractor', 'stager', 'loader']);
    expect(readmeSetting(table, 'NATS_URL')?.usedBy).toHaveLength(5);
    expect(readmeSetting(table, 'SVC_WORKER_KEY_FILE')?.required).toBe(true);
    expect(readmeSetting(table, 'NO_SUCH_SETTING')).toBeUndefined();
  });
});
