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

module.exports = { baseJestConfig };
