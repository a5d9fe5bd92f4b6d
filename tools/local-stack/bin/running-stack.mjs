// The npm start that runs in this checkout, if any: the record it keeps (tmp/local-stack.json, or LOCAL_STACK_STATE_FILE)
// of a process that is still alive. Plain JavaScript: read before anything is built.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export function runningStack() {
  const stateFile = process.env.LOCAL_STACK_STATE_FILE || join(repoRoot, 'tmp', 'local-stack.json');
  let state;
  try {
    state = JSON.parse(readFileSync(stateFile, 'utf8'));
  } catch {
    return null;
  }
  try {
    process.kill(state.pid, 0);
    return state;
  } catch (error) {
    // EPERM: the process exists but belongs to another user; ESRCH: it is gone and the file is stale.
    return error.code === 'EPERM' ? state : null;
  }
}
