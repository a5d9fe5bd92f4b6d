import type { EnvReader } from './env-reader';

/** Where a process answers its health probes (/health, /live, /ready): PROBE_PORT and PROBE_HOST. */
export interface ProbeSettings {
  port: number;
  host: string;
}

/**
 * PROBE_PORT (unset or 0: no probe server) and PROBE_HOST (default 0.0.0.0: a kubelet probes the pod's address). The
 * answers name only checks and their outcome, never an address or a secret, so listening beyond loopback is safe.
 */
export function readProbeSettings(env: EnvReader): ProbeSettings | null {
  const port = env.int('PROBE_PORT', 0, { min: 0, max: 65535 });
  const host = env.string('PROBE_HOST', '0.0.0.0');
  return port === 0 ? null : { port, host };
}
