const { compilerOptions } = require('./tsconfig.base.json');

// tsconfig "paths" map '@svc/<lib>' (and an engine's '@svc/<engine>/<lib>') to its one public door; jest resolves
// the same way, in the same order: exact aliases first, then the patterns (one '*' each, as TypeScript allows).
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths)
    .sort(([a], [b]) => Number(a.includes('*')) - Number(b.includes('*')))
    .map(([alias, [target]]) => [`^${alias.split('*').map(escape).join('(.+)')}$`, `<rootDir>/${target.replace('*', '$1')}`]),
);

const baseJestConfig = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
};

/**
 * The operator console's modules import each other as './x.js', as browsers load ES modules; its specs map
 * such a relative specifier to the TypeScript file. Only here: elsewhere it would also rewrite packages' own requires.
 */
const consoleJestConfig = {
  ...baseJestConfig,
  moduleNameMapper: { ...moduleNameMapper, '^(\\.{1,2}/.*)\\.js$': '$1' },
};

module.exports = { baseJestConfig, consoleJestConfig };
