// Runs npm scripts at the same time (`node tools/ci/run-together.js typecheck lint build`) and prints each one's output
// in one piece when it ends, with how long it took, so that single-threaded steps share the machine's cores without
// mixing their lines. Fails when any of them fails.
const { spawn } = require('node:child_process');

function run(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const outcome = code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n=== npm run ${script}: ${outcome} in ${seconds} s\n${Buffer.concat(output).toString()}`);
      resolve(code === 0);
    });
  });
}

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error('usage: node tools/ci/run-together.js <npm script>...');
  process.exit(2);
}
Promise.all(scripts.map(run)).then((results) => {
  if (results.includes(false)) process.exitCode = 1;
});
