import type { RegistryMetricsReply } from '@svc/contracts';
import { ApiMetrics } from '../api/api-metrics';
import { NO_SUCH_RESOURCE_MESSAGE } from '../api/api-error';
import type { GatewayConfig } from '../config/gateway-config';
import type { HealthService } from '../health/health.service';
import { createGatewayMetricsRegistry } from './gateway-metrics-registry';
import { MetricsEndpoint } from './metrics-endpoint';

const TOKEN = 'metrics-unit-token-0123456789';

function endpointWith(snapshot: RegistryMetricsReply | null, metricsToken: string | null = TOKEN): { endpoint: MetricsEndpoint; apiMetrics: ApiMetrics } {
  const registry = createGatewayMetricsRegistry();
  const health = { replicationMetrics: () => Promise.resolve(snapshot) } as unknown as HealthService;
  const config = (metricsToken === null ? {} : { metricsToken }) as GatewayConfig;
  return { endpoint: new MetricsEndpoint(health, registry, config), apiMetrics: new ApiMetrics(registry) };
}

async function scrapedLines(endpoint: MetricsEndpoint): Promise<string[]> {
  const answer = await endpoint.answer(`Bearer ${TOKEN}`);
  expect(answer.status).toBe(200);
  expect(answer.headers['Content-Type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return answer.body.split('\n');
}

describe('MetricsEndpoint /metrics', () => {
  it("shows the API calls, the process and the registry's replications in one exposition", async () => {
    const { endpoint, apiMetrics } = endpointWith({ replications: [], activeAlerts: [{ replicationId: 'r1', kind: 'Reseed', count: 1 }] });
    apiMetrics.record('DescribeWarehouseReplication', 200, 7);
    const lines = await scrapedLines(endpoint);
    expect(lines).toContain('svc_api_requests_total{operation="DescribeWarehouseReplication",status="200"} 1');
    expect(lines).toContain('svc_registry_up 1');
    expect(lines).toContain('svc_alerts{replication_id="r1",kind="Reseed"} 1');
    for (const processFamily of ['process_cpu_user_seconds_total', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(lines.some((line) => line.startsWith(`${processFamily} `))).toBe(true);
    }
    const families = lines.filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ')[2]);
    expect(new Set(families).size).toBe(families.length);
  });

  it('says the registry is down, and still shows the API calls, when it does not answer', async () => {
    const { endpoint, apiMetrics } = endpointWith(null);
    apiMetrics.record('ListWarehouseReplications', 503, 2000);
    const lines = await scrapedLines(endpoint);
    expect(lines).toContain('svc_registry_up 0');
    expect(lines).toContain('svc_api_request_duration_ms_sum{operation="ListWarehouseReplications",status="503"} 2000');
  });

  it.each([
    ['no Authorization', undefined],
    ['another token', 'Bearer metrics-unit-token-0123456780'],
  ])('answers 401 asking for the bearer token, naming nothing, with %s', async (_case, authorization) => {
    const { endpoint } = endpointWith({ replications: [], activeAlerts: [] });
    const answer = await endpoint.answer(authorization);
    expect(answer.status).toBe(401);
    expect(answer.headers['WWW-Authenticate']).toBe('Bearer realm="metrics"');
    expect(answer.body).not.toContain('svc_');
  });

  it('answers the 404 of an unknown path when METRICS_TOKEN is not set, whatever the caller sends', async () => {
    const { endpoint } = endpointWith({ replications: [], activeAlerts: [] }, null);
    const answer = await endpoint.answer(`Bearer ${TOKEN}`);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ errors: [NO_SUCH_RESOURCE_MESSAGE] });
  });
});
