#!/usr/bin/env node
// Writes tools/ci/integration-durations.json (seconds per integration test file) from the last run's
// tmp/jest-integration.json, for duration-sequencer.js. Run after `npm test` on this machine kind and commit the file.
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..', '..');
const run = JSON.parse(readFileSync(join(root, 'tmp', 'jest-integration.json'), 'utf8'));
const seconds = Object.fromEntries(
  run.testResults
    .map((result) => [relative(root, result.name), Math.round((result.endTime - result.startTime) / 100) / 10])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(join(__dirname, 'integration-durations.json'), `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`recorded ${Object.keys(seconds).length} files`);
