const { compilerOptions } = require('./tsconfig.base.json');

// tsconfig "paths" map '@svc/<lib>' to its one public door; jest resolves the same way.
const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias.replace('/', '\\/')}$`, `<rootDir>/${target}`]),
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
