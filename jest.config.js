// Unit tests: *.spec.ts next to the code. No external services.
const { baseJestConfig } = require('./jest.preset');

module.exports = { ...baseJestConfig, testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] };
