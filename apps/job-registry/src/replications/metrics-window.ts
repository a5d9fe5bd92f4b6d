import { METRICS_DEFAULT_SINCE_MINUTES, METRICS_MAX_POINTS, type ReplicationMetricsRequest } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';

export interface MetricsWindow {
  since: Date;
  sinceMinutes: number;
  stepMinutes: number;
}

/**
 * The history a GetReplicationMetrics asks for: the last `sinceMinutes` whole minutes (the current one
 * included) in intervals of `stepMinutes`, by default the smallest step that keeps a series within
 * METRICS_MAX_POINTS; a step that would exceed it is refused, naming the smallest allowed.
 */
export function metricsWindow(request: Pick<ReplicationMetricsRequest, 'sinceMinutes' | 'stepMinutes'>, now: Date): MetricsWindow | { problem: string } {
  const sinceMinutes = request.sinceMinutes ?? METRICS_DEFAULT_SINCE_MINUTES;
  const smallestStep = Math.ceil(sinceMinutes / METRICS_MAX_POINTS);
  const stepMinutes = request.stepMinutes ?? smallestStep;
  if (stepMinutes < smallestStep) {
    return {
      problem: `${fieldLabel(['stepMinutes'])}: invalid value ${stepMinutes}. Must be at least ${smallestStep} for ${fieldLabel(['sinceMinutes'])} ${sinceMinutes} (at most ${METRICS_MAX_POINTS} points a table)`,
    };
  }
  const minuteStart = Math.floor(now.getTime() / 60000) * 60000;
  return { since: new Date(minuteStart - (sinceMinutes - 1) * 60000), sinceMinutes, stepMinutes };
}
