import { readFileSync } from 'node:fs';

/** `VmHWM` (peak resident set size) in bytes from the text of /proc/<pid>/status, or null when absent. */
export function parseVmHwm(status: string): number | null {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

/** Peak RSS of a running process (Linux); null where /proc is missing or the process is gone. */
export function peakRssBytes(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    return parseVmHwm(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}
