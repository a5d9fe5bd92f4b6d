import { Inject, Injectable } from '@nestjs/common';
import { encodeError } from '@svc/api-codec';
import { Registry } from 'prom-client';
import { NO_SUCH_RESOURCE_MESSAGE } from '../api/api-error';
import { nextRequestId } from '../api/request-id';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { HealthService } from '../health/health.service';
import { replicationMetricsRegistry } from '../health/replication-metrics';
import { GATEWAY_METRICS_REGISTRY } from './gateway-metrics-registry';
import { bearerTokenMatches } from './metrics-token';

export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * GET /metrics: the Prometheus text for a scraper that shows METRICS_TOKEN as its bearer token (401 otherwise),
 * and the same 404 as any unknown path when no token is configured — the series name every replication and table.
 */
@Injectable()
export class MetricsEndpoint {
  constructor(
    private readonly health: HealthService,
    @Inject(GATEWAY_METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async answer(authorization: string | undefined): Promise<MetricsAnswer> {
    const token = this.config.metricsToken;
    if (token === undefined) return errorAnswer(404, NO_SUCH_RESOURCE_MESSAGE);
    if (!bearerTokenMatches(authorization, token)) {
      return errorAnswer(401, '/metrics needs the bearer token set in METRICS_TOKEN', { 'WWW-Authenticate': 'Bearer realm="metrics"' });
    }
    return { status: 200, headers: { 'Content-Type': Registry.PROMETHEUS_CONTENT_TYPE }, body: await this.text() };
  }

  /** The gateway's own series (API calls, process) and the registry's view of every replication, as of the cached snapshot. */
  async text(): Promise<string> {
    const replications = replicationMetricsRegistry(await this.health.replicationMetrics());
    return Registry.merge([this.registry, replications]).metrics();
  }
}

function errorAnswer(status: number, message: string, headers: Record<string, string> = {}): MetricsAnswer {
  const requestId = nextRequestId();
  const encoded = encodeError('json', requestId, [message]);
  return { status, headers: { 'Content-Type': encoded.contentType, 'X-Svc-Request-Id': String(requestId), ...headers }, body: encoded.body };
}
