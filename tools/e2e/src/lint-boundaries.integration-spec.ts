import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * The import boundaries of eslint.config.mjs (docs/ENGINES.md) fire: each fixture under a lint-fixtures folder
 * breaks one rule on purpose (the repository's own lint run ignores those folders), and one is the allowed case.
 */
describe('import boundaries', () => {
  const FIXTURES = [
    'apps/loader/src/lint-fixtures/app-imports-engine.ts',
    'apps/loader/src/lint-fixtures/app-imports-test-support.ts',
    'libs/sqlserver/engine/src/lint-fixtures/engine-imports-other-engine.ts',
    'libs/engine-list/src/lint-fixtures/engine-list-imports-engine.ts',
    'libs/contracts/src/lint-fixtures/contracts-import-external.ts',
    'libs/registry-store/src/lint-fixtures/store-imports-engine.ts',
    'apps/console/src/lint-fixtures/console-imports-server-library.ts',
  ];
  let messagesOf: Map<string, { ruleId: string | null; message: string }[]>;

  beforeAll(() => {
    // The CLI, as `npm run lint` runs it (ESLint's API loads the .mjs config with a dynamic import jest cannot run):
    // first the project graph, without which Nx's boundary rule cannot tell npm packages apart.
    const graph = spawnSync(join(ROOT, 'node_modules', '.bin', 'nx'), ['show', 'projects'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NX_DAEMON: 'false' } });
    if (graph.status !== 0) throw new Error(`nx show projects failed: ${graph.stderr}`);
    const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'eslint'), ['--no-ignore', '--format', 'json', ...FIXTURES], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NX_DAEMON: 'false' } });
    // Without a cached project graph (no `npm run lint` before), Nx's plugin prints a warning line before the report.
    const report = run.stdout.split('\n').find((line) => line.startsWith('['));
    if (report === undefined) throw new Error(`eslint printed no report: ${run.stdout}${run.stderr}`);
    const results = JSON.parse(report) as { filePath: string; messages: { ruleId: string | null; message: string }[] }[];
    messagesOf = new Map(
      results.map((result) => [
        result.filePath.slice(ROOT.length + 1),
        result.messages,
      ]),
    );
  }, 120000);

  const restrictedImports = async (fixture: string, rule = 'no-restricted-imports'): Promise<string[]> => {
    const messages = messagesOf.get(fixture);
    if (messages === undefined) throw new Error(`eslint did not lint ${fixture}`);
    return messages.filter((message) => message.ruleId === rule).map((message) => message.message);
  };

  it('an app never imports an engine library', async () => {
    expect(await restrictedImports('apps/loader/src/lint-fixtures/app-imports-engine.ts')).toEqual([
      expect.stringContaining('only the engine list (libs/engine-list) imports an engine library'),
    ]);
  }, 60000);

  it('production code never imports test support', async () => {
    expect(await restrictedImports('apps/loader/src/lint-fixtures/app-imports-test-support.ts')).toEqual([
      expect.stringContaining('test support is for specs, testing entries and tools, never production code'),
    ]);
  }, 60000);

  it('an engine never imports another engine\'s library', async () => {
    expect(await restrictedImports('libs/sqlserver/engine/src/lint-fixtures/engine-imports-other-engine.ts')).toEqual([
      expect.stringContaining('engines never import each other'),
    ]);
  }, 60000);

  it('the engine list imports engine libraries', async () => {
    expect(await restrictedImports('libs/engine-list/src/lint-fixtures/engine-list-imports-engine.ts')).toEqual([]);
  }, 60000);

  it('contracts import their schema library and nothing else from outside', async () => {
    expect(await restrictedImports('libs/contracts/src/lint-fixtures/contracts-import-external.ts', '@nx/enforce-module-boundaries')).toEqual([
      expect.stringContaining('"pg"'),
    ]);
  }, 60000);

  it('the registry store never imports an engine library', async () => {
    expect(await restrictedImports('libs/registry-store/src/lint-fixtures/store-imports-engine.ts')).toEqual([
      expect.stringContaining('only the engine list (libs/engine-list) imports an engine library'),
    ]);
  }, 60000);

  it('the console imports only the browser-safe entries of our libraries at run time', async () => {
    expect(await restrictedImports('apps/console/src/lint-fixtures/console-imports-server-library.ts')).toEqual([
      expect.stringContaining("'@svc/signing' import is restricted"),
    ]);
  }, 60000);
});
