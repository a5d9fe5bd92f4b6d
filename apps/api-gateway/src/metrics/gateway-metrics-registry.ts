import { collectDefaultMetrics, Registry } from 'prom-client';

/** Injection token of the gateway's metrics registry. */
export const GATEWAY_METRICS_REGISTRY = Symbol('GATEWAY_METRICS_REGISTRY');

/**
 * The gateway's own prom-client registry, with Node's process metrics (CPU, memory, event loop, GC).
 * Not prom-client's global registry: several gateways started in one test process must not collide.
 */
export function createGatewayMetricsRegistry(): Registry {
  const register = new Registry();
  collectDefaultMetrics({ register });
  return register;
}
