import { readFileSync, readdirSync } from 'node:fs';

/** Pids of this process's direct children whose command name is `name` (Linux /proc; none elsewhere). */
export function childPidsNamed(name: string, parentPid = process.pid): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  return entries.map(Number).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return command === name && parent === parentPid;
    } catch {
      return false; // gone meanwhile
    }
  });
}
