// Prints one plain 'N passed, N failed' line over every jest JSON report given, so CI logs end with a
// summary any reader (or log scraper) understands.
const { readFileSync, existsSync } = require('node:fs');

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`missing jest report ${file}`);
    process.exitCode = 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);

// Which engine pairs the generic suites ran, and why the others did not (tools/e2e/src/engine-pairs.ts).
const pairReport = 'tmp/engine-pairs.txt';
if (existsSync(pairReport)) {
  console.log('engine pairs:');
  for (const line of [...new Set(readFileSync(pairReport, 'utf8').split('\n').filter(Boolean))]) console.log(`  ${line}`);
}
