import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import { existsSync, readdirSync } from 'node:fs';

const nestBanned = ['@nestjs/*', '@nestjs/common', '@nestjs/core', '@nestjs/microservices'];

/**
 * The engine folders (docs/ENGINES.md): libs/<engine>/*, imported as @svc/<engine>/<library>. An engine folder is one with an
 * `engine` library; libs/engine-list/src/engine-list.spec.ts checks that these are the engines of the engine list.
 */
const engines = readdirSync(new URL('libs', import.meta.url)).filter((name) => existsSync(new URL(`libs/${name}/engine/project.json`, import.meta.url)));
/**
 * Where engine libraries may be imported: the engine list (libs/engine-list) and the registry's warehouse probe
 * (connectors). The registry's own store keeps its data in PostgreSQL through its own helper, not an engine.
 */
const engineConsumers = ['libs/engine-list/**', 'libs/connectors/**'];
const specFiles = ['**/*.spec.ts', '**/*.integration-spec.ts', '**/src/testing/**'];
const testSupport = {
  group: ['@svc/testing', '@svc/system-testing', '@svc/*/testing', '**/testing', '**/testing/*'],
  message: 'test support is for specs, testing entries and tools, never production code',
};
const engineLibs = (names) => ({
  group: names.flatMap((name) => [`@svc/${name}/*`, `@svc/${name}/**`]),
  message: 'engines are plug-ins: only the engine list (libs/engine-list) imports an engine library, and engines never import each other',
});
/** Library entries the operator console may import at run time, and the files its browser build compiles for them. */
const browserSafeEntries = ['@svc/signing/core', '@svc/contracts/browser'];
const browserSafeFiles = ['libs/signing/src/core/**/*.ts', 'libs/contracts/src/browser.ts', 'libs/contracts/src/replication/{operations,access-key-operations,replication-config,replication-status,validation}.ts'];
const nodeGlobals = ['Buffer', 'process', 'require', '__dirname'];
const restrictImports = (patterns) => ({ rules: { 'no-restricted-imports': ['error', { patterns }] } });
/**
 * Import boundaries the Nx tags cannot say (they also count dependencies of dependencies): apps and engine-neutral
 * libs never import an engine library, engine libraries never import another engine's, production code never
 * imports test support. Fixtures proving each rule fires: tools/e2e/src/lint-boundaries.integration-spec.ts.
 */
const importBoundaries = [
  { files: ['apps/**/*.ts', 'libs/**/*.ts'], ignores: [...engines.map((name) => `libs/${name}/**`), ...engineConsumers, ...specFiles, 'libs/testing/**', 'libs/system-testing/**'], ...restrictImports([testSupport, engineLibs(engines)]) },
  {
    files: [...specFiles.map((glob) => `apps/${glob}`), ...specFiles.map((glob) => `libs/${glob}`), 'libs/testing/**/*.ts', 'libs/system-testing/**/*.ts'],
    ignores: [...engines.map((name) => `libs/${name}/**`), ...engineConsumers],
    ...restrictImports([engineLibs(engines)]),
  },
  ...engines.map((name) => ({ files: [`libs/${name}/**/*.ts`], ignores: specFiles, ...restrictImports([testSupport, engineLibs(engines.filter((other) => other !== name))]) })),
  ...engines.map((name) => ({ files: specFiles.map((glob) => `libs/${name}/${glob}`), ...restrictImports([engineLibs(engines.filter((other) => other !== name))]) })),
  { files: engineConsumers.map((glob) => `${glob}/*.ts`), ignores: specFiles, ...restrictImports([testSupport]) },
  // The registry store's redaction fuzz reads each generated connection string back with the engines' own parsers:
  // a test oracle, not a dependency of the store.
  { files: ['libs/registry-store/src/redaction-fuzz.spec.ts', 'libs/registry-store/src/redaction-fuzz/*.ts'], rules: { 'no-restricted-imports': 'off' } },
];

export default tseslint.config(
  // lint-fixtures hold deliberate violations; tools/e2e/src/lint-boundaries.integration-spec.ts lints them on purpose.
  { ignores: ['**/dist', '**/node_modules', '**/*.js', '**/*.mjs', 'tmp/**', '**/lint-fixtures/**'] },
  ...nx.configs['flat/base'],
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          // Tools share code only through libs, but for these: tools/kubernetes checks the manifests against the README's
          // settings table and renders them with the files `npm run secrets -- --kubernetes` writes.
          allow: ['../../local-stack/src/readme-settings', '../../bus-secrets/src/kubernetes-secrets', '../../bus-secrets/src/nats-layout'],
          depConstraints: [
            // contracts are the shared language: they depend on nothing but the schema library their types come from.
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [], allowedExternalImports: ['@sinclair/typebox', '@sinclair/typebox/*'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contracts', 'type:testing'], bannedExternalImports: nestBanned },
            // Test support (harnesses, temp databases, private servers): used by specs and tools, never by production code paths.
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:data-access', 'type:domain', 'type:util', 'type:contracts'], bannedExternalImports: nestBanned },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:contracts', 'type:testing'], bannedExternalImports: nestBanned },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:data-access', 'type:domain', 'type:util', 'type:contracts', 'type:testing'], bannedExternalImports: nestBanned },
            { sourceTag: 'type:nest', onlyDependOnLibsWithTags: ['type:nest', 'type:data-access', 'type:domain', 'type:util', 'type:contracts', 'type:testing'] },
            // apps never import apps.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:nest', 'type:data-access', 'type:domain', 'type:util', 'type:contracts', 'type:testing'] },
            // The operator console runs in the browser: at run time it takes only the browser-safe entries of the contracts and signing (browserSafeEntries; its build has no Node types).
            { sourceTag: 'type:browser', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:nest', 'type:data-access', 'type:domain', 'type:util', 'type:contracts', 'type:testing'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:gateway'] },
            { sourceTag: 'scope:registry', onlyDependOnLibsWithTags: ['scope:shared', 'scope:registry'] },
            { sourceTag: 'scope:pipeline', onlyDependOnLibsWithTags: ['scope:shared', 'scope:pipeline'] },
            { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:shared', 'scope:cli'] },
            { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:shared', 'scope:tools'] },
            { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
    },
  },
  ...importBoundaries,
  {
    // Browser code: nothing of Node. Its specs run in Node and may compare with the server's libraries.
    files: ['apps/console/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(node:|@svc/(?!(${browserSafeEntries.map((entry) => entry.slice('@svc/'.length)).join('|')})$))`,
              message: `the console runs in the browser: no Node modules, and of our libraries only their browser-safe entries (${browserSafeEntries.join(', ')}) or types (import type)`,
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', ...nodeGlobals],
    },
  },
  {
    // What the console's browser build compiles of the libraries: nothing of Node, and nothing but each other.
    files: browserSafeFiles,
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!\\.{1,2}/)', message: 'a browser-safe entry imports nothing but its own relative modules' }] }],
      'no-restricted-globals': ['error', ...nodeGlobals],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.integration-spec.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
