// Integration tests: *.integration-spec.ts against real PostgreSQL, NATS JetStream and an S3 server.
const { baseJestConfig } = require('./jest.preset');

module.exports = {
  ...baseJestConfig,
  testMatch: ['<rootDir>/{apps,libs,tools}/**/*.integration-spec.ts'],
  testTimeout: 60000,
  // Longest files first (tools/ci/integration-durations.json), so that the run ends when the work does.
  testSequencer: '<rootDir>/tools/ci/duration-sequencer.js',
  // A PostgreSQL with wal_level=logical for the whole run, unless the test server is one (jest.logical-postgres.js).
  globalSetup: '<rootDir>/jest.logical-postgres.setup.js',
  globalTeardown: '<rootDir>/jest.logical-postgres.teardown.js',
};
