// Unit tests: *.spec.ts next to the code. No external services.
const { baseJestConfig, consoleJestConfig } = require('./jest.preset');

module.exports = {
  projects: [
    { ...baseJestConfig, displayName: 'services', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'], testPathIgnorePatterns: ['/node_modules/', '<rootDir>/apps/console/'] },
    { ...consoleJestConfig, displayName: 'console', testMatch: ['<rootDir>/apps/console/**/*.spec.ts'] },
  ],
};
