import { readFileSync } from 'node:fs';

/** `VmRSS` (resident set size now) in bytes from the text of /proc/<pid>/status, or null when absent. */
export function parseVmRss(status: string): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

function rssOfProcess(pid: number): number | null {
  try {
    return parseVmRss(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}

/** A service's highest resident set size seen, and the phase of the benchmark it was seen in. */
export interface PhasePeak {
  service: string;
  bytes: number;
  phase: string;
}

/**
 * Samples each process's RSS every `intervalMs` and remembers, per process, the highest sample and the phase the
 * benchmark was in then. VmHWM says how high a process went, not when: a catch-up run's extractor peaked at 293 MiB
 * in one run and ~190 in others, and only the phase tells which work to look at.
 */
export class RssPhases {
  private current = 'start';
  private readonly peaks = new Map<string, PhasePeak>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pids: Readonly<Record<string, number | undefined>>,
    private readonly rssOf: (pid: number) => number | null = rssOfProcess,
  ) {}

  start(intervalMs = 250): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Samples once more (the end of the phase before) and names the phase that begins. */
  phase(name: string): void {
    this.sample();
    this.current = name;
  }

  stop(): PhasePeak[] {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
    return [...this.peaks.values()];
  }

  sample(): void {
    for (const [service, pid] of Object.entries(this.pids)) {
      if (pid === undefined) continue;
      const bytes = this.rssOf(pid);
      if (bytes === null) continue;
      const peak = this.peaks.get(service);
      if (peak === undefined || bytes > peak.bytes) this.peaks.set(service, { service, bytes, phase: this.current });
    }
  }
}

/** `212 MiB` */
export function mebibytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

/** `extractor 212 MiB (the big transaction, pipeline)`, … */
export function describePhasePeaks(peaks: readonly PhasePeak[]): string {
  return peaks.map((peak) => `${peak.service} ${mebibytes(peak.bytes)} (${peak.phase})`).join(', ');
}
