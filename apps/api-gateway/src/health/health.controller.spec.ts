import type { RegistryMetricsReply } from '@svc/contracts';
import { ApiMetrics } from '../api/api-metrics';
import { createGatewayMetricsRegistry } from '../metrics/gateway-metrics-registry';
import { HttpHealthController } from './health.controller';
import type { HealthService } from './health.service';

function controllerWith(snapshot: RegistryMetricsReply | null): { controller: HttpHealthController; apiMetrics: ApiMetrics } {
  const registry = createGatewayMetricsRegistry();
  const health = { replicationMetrics: () => Promise.resolve(snapshot) } as unknown as HealthService;
  return { controller: new HttpHealthController(health, registry), apiMetrics: new ApiMetrics(registry) };
}

describe('HttpHealthController /metrics', () => {
  it("shows the API calls, the process and the registry's replications in one exposition", async () => {
    const { controller, apiMetrics } = controllerWith({ replications: [], alertsRaised: { Reseed: 1 } });
    apiMetrics.record('DescribeWarehouseReplication', 200, 7);
    const lines = (await controller.metricsText()).split('\n');
    expect(lines).toContain('svc_api_requests_total{operation="DescribeWarehouseReplication",status="200"} 1');
    expect(lines).toContain('svc_registry_up 1');
    expect(lines).toContain('svc_alerts{kind="Reseed"} 1');
    for (const processFamily of ['process_cpu_user_seconds_total', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(lines.some((line) => line.startsWith(`${processFamily} `))).toBe(true);
    }
    const families = lines.filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ')[2]);
    expect(new Set(families).size).toBe(families.length);
  });

  it('says the registry is down, and still shows the API calls, when it does not answer', async () => {
    const { controller, apiMetrics } = controllerWith(null);
    apiMetrics.record('ListWarehouseReplications', 503, 2000);
    const lines = (await controller.metricsText()).split('\n');
    expect(lines).toContain('svc_registry_up 0');
    expect(lines).toContain('svc_api_request_duration_ms_sum{operation="ListWarehouseReplications",status="503"} 2000');
  });
});
