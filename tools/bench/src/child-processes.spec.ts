import { spawn } from 'node:child_process';
import { childPidsNamed } from './child-processes';

describe('childPidsNamed', () => {
  it('finds a child by command name on Linux, and nothing for a name no child has', async () => {
    const child = spawn('sleep', ['5'], { stdio: 'ignore' });
    try {
      if (process.platform === 'linux') expect(childPidsNamed('sleep')).toContain(child.pid);
      expect(childPidsNamed('no-such-command-here')).toEqual([]);
    } finally {
      child.kill();
      await new Promise((done) => child.once('exit', done));
    }
  });
});
