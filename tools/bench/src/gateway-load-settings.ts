import { EnvReader } from '@svc/config';

export interface GatewayLoadSettings {
  /** Hostile callers sending at once. */
  callers: number;
  /** Seconds each load runs. */
  seconds: number;
  /** Where the dated result section is appended. */
  reportFile: string;
}

/** How often /health is asked during each load. */
export const HEALTH_PROBE_INTERVAL_MS = 100;

export function loadGatewayLoadSettings(environment: Record<string, string | undefined>, defaultReportFile: string): GatewayLoadSettings {
  const env = new EnvReader(environment);
  const settings: GatewayLoadSettings = {
    callers: env.int('BENCH_GATEWAY_CALLERS', 4, { min: 1, max: 64 }),
    seconds: env.int('BENCH_GATEWAY_SECONDS', 15, { min: 2, max: 3600 }),
    reportFile: env.string('BENCH_REPORT_FILE', defaultReportFile),
  };
  env.done();
  return settings;
}
