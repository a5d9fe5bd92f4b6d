// Integration test files, longest first (longest-processing-time scheduling): jest's own order on a fresh clone (no
// cache) is by file size, which started the three-pair pipeline suite, a small file, last, ~430 s into the run.
// Durations are a run's, recorded by tools/ci/record-durations.js; a file not in the record goes first (it may be long).
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const recorded = require('./integration-durations.json');

class DurationSequencer extends Sequencer {
  sort(tests) {
    const jestOrder = super.sort(tests);
    const secondsOf = (test) => recorded[relative(test.context.config.rootDir, test.path)];
    const unknown = jestOrder.filter((test) => secondsOf(test) === undefined);
    const known = jestOrder.filter((test) => secondsOf(test) !== undefined).sort((a, b) => secondsOf(b) - secondsOf(a));
    return [...unknown, ...known];
  }
}

module.exports = DurationSequencer;
