import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WorkerOptions } from 'node:worker_threads';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/**
 * tsconfig's `@svc/…` paths as [prefix, suffix, absolute target] in the order TypeScript tries them: exact aliases
 * (no `*`: prefix is the whole alias) first, then the patterns, whose one `*` the target repeats.
 */
function libraryAliases(): [string, string | null, string][] {
  const config = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
  const entries = Object.entries(config.compilerOptions.paths).map(([alias, [target = '']]): [string, string | null, string] => {
    const [prefix = '', suffix] = alias.split('*');
    return [prefix, suffix ?? null, join(REPO_ROOT, target)];
  });
  return [...entries.filter(([, suffix]) => suffix === null), ...entries.filter(([, suffix]) => suffix !== null)];
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
    const aliased = (request) => {
      for (const [prefix, suffix, target] of aliases) {
        if (suffix === null ? request === prefix : request.length > prefix.length + suffix.length && request.startsWith(prefix) && request.endsWith(suffix)) {
          return suffix === null ? target : target.replace('*', request.slice(prefix.length, request.length - suffix.length));
        }
      }
      return request;
    };
    const resolveFilename = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      return resolveFilename.call(this, aliased(request), ...rest);
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
