import { Registry } from 'prom-client';
import { ApiMetrics } from './api-metrics';

async function seriesOf(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('ApiMetrics', () => {
  it('counts calls and sums their duration by operation and status', async () => {
    const registry = new Registry();
    const metrics = new ApiMetrics(registry);
    metrics.record('CreateWarehouseReplication', 200, 12);
    metrics.record('CreateWarehouseReplication', 200, 30);
    metrics.record('CreateWarehouseReplication', 400, 5);
    expect(await seriesOf(registry)).toEqual([
      'svc_api_requests_total{operation="CreateWarehouseReplication",status="200"} 2',
      'svc_api_requests_total{operation="CreateWarehouseReplication",status="400"} 1',
      'svc_api_request_duration_ms_sum{operation="CreateWarehouseReplication",status="200"} 42',
      'svc_api_request_duration_ms_sum{operation="CreateWarehouseReplication",status="400"} 5',
    ]);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE svc_api_requests_total counter\n');
    expect(text).toContain('# TYPE svc_api_request_duration_ms_sum counter\n');
  });

  it('folds operation names it does not know into one series, so a scanner cannot add series', async () => {
    const registry = new Registry();
    const metrics = new ApiMetrics(registry);
    for (let probe = 0; probe < 50; probe += 1) metrics.record(`Probe${probe}`, 404, 1);
    metrics.record('', 404, 0);
    expect(await seriesOf(registry)).toEqual([
      'svc_api_requests_total{operation="unknown",status="404"} 51',
      'svc_api_request_duration_ms_sum{operation="unknown",status="404"} 50',
    ]);
  });

  it('never fails a call for a duration the clock made negative', async () => {
    const registry = new Registry();
    new ApiMetrics(registry).record('ListWarehouseReplications', 200, -3);
    expect(await seriesOf(registry)).toContain('svc_api_request_duration_ms_sum{operation="ListWarehouseReplications",status="200"} 0');
  });

  it('keeps the counts of each gateway in its own registry', async () => {
    const first = new Registry();
    const second = new Registry();
    new ApiMetrics(first).record('ListWarehouseReplications', 200, 1);
    new ApiMetrics(second);
    expect(await seriesOf(first)).toContain('svc_api_requests_total{operation="ListWarehouseReplications",status="200"} 1');
    expect(await seriesOf(second)).toEqual([]);
  });
});
