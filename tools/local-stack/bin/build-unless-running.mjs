// Runs before `npm run demo`: builds dist/, unless the npm start of this checkout runs from it. Rebuilding then would
// delete and rewrite the files its services run from (one restarted meanwhile would not find them); the demo uses the
// build npm start made instead, which is this checkout's.
import { spawnSync } from 'node:child_process';
import { runningStack } from './running-stack.mjs';

const running = runningStack();
if (running) {
  process.stderr.write(`npm start runs here (process ${running.pid}): using its build of dist/ rather than rebuilding it under its services.\n`);
} else {
  const built = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  process.exit(built.status ?? 1);
}
