import { Inject, Injectable } from '@nestjs/common';
import { isOperationName } from '@svc/contracts';
import { Counter, type Registry } from 'prom-client';
import { GATEWAY_METRICS_REGISTRY } from '../metrics/gateway-metrics-registry';

type RequestLabel = 'operation' | 'status';

/** Request counters and latency sums per operation and HTTP status, in the gateway's metrics registry. */
@Injectable()
export class ApiMetrics {
  private readonly requests: Counter<RequestLabel>;
  private readonly durationMs: Counter<RequestLabel>;

  constructor(@Inject(GATEWAY_METRICS_REGISTRY) registry: Registry) {
    const labelNames = ['operation', 'status'] as const;
    this.requests = new Counter({ name: 'svc_api_requests_total', help: 'API calls by operation and HTTP status.', labelNames, registers: [registry] });
    this.durationMs = new Counter({
      name: 'svc_api_request_duration_ms_sum',
      help: 'Summed API call duration in milliseconds.',
      labelNames,
      registers: [registry],
    });
  }

  record(operation: string, status: number, durationMs: number): void {
    // Unknown operation names are folded into one label so a scanner cannot grow the series without bound.
    const labels = { operation: isOperationName(operation) ? operation : 'unknown', status };
    this.requests.inc(labels);
    // A counter refuses a negative increment, which a wall clock stepping back could produce.
    this.durationMs.inc(labels, Math.max(0, durationMs));
  }
}
