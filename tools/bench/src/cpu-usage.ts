import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** CPU seconds (user + system) used so far, per named process, by this process, and by the whole machine. */
export interface CpuSnapshot {
  processes: Record<string, number>;
  self: number;
  machine: number;
  /** performance.now() when taken, in seconds. */
  at: number;
}

/** CPU seconds spent between two snapshots; `rest` is the machine's busy time nobody listed accounts for. */
export interface CpuSpent {
  processes: Record<string, number>;
  self: number;
  rest: number;
  machine: number;
  /** Wall-clock seconds between the snapshots. */
  wallSeconds: number;
}

let clockTicks: number | undefined;

/** USER_HZ, the unit of /proc/<pid>/stat times (100 on practically every Linux). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime in clock ticks from the text of /proc/<pid>/stat (the command name may hold spaces and parentheses). */
export function parseProcStatTicks(stat: string): number | null {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3 of stat(5); utime and stime are fields 14 and 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : null;
}

function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    return (parseProcStatTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')) ?? Number.NaN) / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

export function cpuSnapshot(pids: Record<string, number | undefined>): CpuSnapshot {
  const usage = process.cpuUsage();
  const machineMs = cpus().reduce((total, cpu) => total + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0);
  return {
    processes: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuSeconds(pid)])),
    self: (usage.user + usage.system) / 1e6,
    machine: machineMs / 1000,
    at: performance.now() / 1000,
  };
}

export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): CpuSpent {
  const processes = Object.fromEntries(Object.keys(after.processes).map((name) => [name, (after.processes[name] ?? Number.NaN) - (before.processes[name] ?? Number.NaN)]));
  const self = after.self - before.self;
  const machine = after.machine - before.machine;
  const listed = Object.values(processes).reduce((total, seconds) => total + (Number.isFinite(seconds) ? seconds : 0), self);
  return { processes, self, rest: machine - listed, machine, wallSeconds: after.at - before.at };
}
