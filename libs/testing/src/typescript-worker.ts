import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WorkerOptions } from 'node:worker_threads';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** tsconfig's `@svc/<lib>` paths as absolute file names. */
function libraryAliases(): Record<string, string> {
  const config = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
  return Object.fromEntries(Object.entries(config.compilerOptions.paths).map(([alias, [target = '']]) => [alias, join(REPO_ROOT, target)]));
}

/**
 * Runs a TypeScript worker-thread entry from the sources, as jest runs everything else: the thread compiles each
 * `.ts` file it loads with TypeScript (no type check) and resolves `@svc/*` like tsconfig. Production threads run
 * the compiled `.js` from dist/; this lets a spec start the very same entry without a build.
 */
export function typescriptWorker(entry: string): { script: string; options: WorkerOptions } {
  const script = `
    const { readFileSync } = require('node:fs');
    const Module = require('node:module');
    const ts = require(${JSON.stringify(require.resolve('typescript'))});
    const aliases = ${JSON.stringify(libraryAliases())};
    const resolveFilename = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      return resolveFilename.call(this, aliases[request] ?? request, ...rest);
    };
    const compilerOptions = {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
      inlineSourceMap: true,
    };
    Module._extensions['.ts'] = (module, fileName) => {
      const { outputText } = ts.transpileModule(readFileSync(fileName, 'utf8'), { fileName, compilerOptions });
      module._compile(outputText, fileName);
    };
    require(${JSON.stringify(entry)});
  `;
  return { script, options: { eval: true } };
}
