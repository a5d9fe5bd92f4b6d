import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import type { Pool } from 'pg';
import type { MachineInfo } from './bench-report';

export async function machineInfo(pool: Pool, loadAtStart: number): Promise<MachineInfo> {
  const { rows } = await pool.query<{ version: string }>(`SELECT current_setting('server_version') AS version`);
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
    memoryBytes: totalmem(),
    os: `${type()} ${release()}`,
    node: process.version,
    postgres: rows[0]?.version ?? 'unknown',
    loadAverage: { start: loadAtStart, end: loadavg()[0] ?? Number.NaN },
  };
}
