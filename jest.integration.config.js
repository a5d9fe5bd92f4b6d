// Integration tests: *.integration-spec.ts against real PostgreSQL, NATS JetStream and an S3 server.
const { baseJestConfig } = require('./jest.preset');

module.exports = {
  ...baseJestConfig,
  testMatch: ['<rootDir>/{apps,libs,tools}/**/*.integration-spec.ts'],
  testTimeout: 60000,
};
