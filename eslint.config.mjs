import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const nestBanned = ['@nestjs/*', '@nestjs/common', '@nestjs/core', '@nestjs/microservices'];

export default tseslint.config(
  { ignores: ['**/dist', '**/node_modules', '**/*.js', '**/*.mjs', 'tmp/**'] },
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
          allow: [],
          depConstraints: [
            // contracts are the shared language: they depend on nothing.
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [], bannedExternalImports: ['*'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contracts', 'type:testing'], bannedExternalImports: nestBanned },
            // Test support (harnesses, temp databases, private servers): used by specs and tools, never by production code paths.
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:data-access', 'type:domain', 'type:util', 'type:contracts'], bannedExternalImports: nestBanned },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:contracts', 'type:testing'], bannedExternalImports: nestBanned },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:data-access', 'type:domain', 'type:util', 'type:contracts', 'type:testing'], bannedExternalImports: nestBanned },
            { sourceTag: 'type:nest', onlyDependOnLibsWithTags: ['type:nest', 'type:data-access', 'type:domain', 'type:util', 'type:contracts', 'type:testing'] },
            // apps never import apps.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:nest', 'type:data-access', 'type:domain', 'type:util', 'type:contracts', 'type:testing'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:nest', 'type:data-access', 'type:domain', 'type:util', 'type:contracts', 'type:testing'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:gateway'] },
            { sourceTag: 'scope:registry', onlyDependOnLibsWithTags: ['scope:shared', 'scope:registry'] },
            { sourceTag: 'scope:pipeline', onlyDependOnLibsWithTags: ['scope:shared', 'scope:pipeline'] },
            { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:shared', 'scope:cli'] },
            { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:shared', 'scope:tools'] },
          ],
        },
      ],
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
