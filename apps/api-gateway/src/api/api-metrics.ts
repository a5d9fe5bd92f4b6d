import { Injectable } from '@nestjs/common';
import { isOperationName } from '@svc/contracts';

/** Request counters and latency sums per operation and status, rendered in Prometheus text format. */
@Injectable()
export class ApiMetrics {
  private readonly counts = new Map<string, { operation: string; status: number; count: number; totalMs: number }>();

  record(operation: string, status: number, durationMs: number): void {
    // Unknown operation names are folded into one label so a scanner cannot grow the map without bound.
    const label = isOperationName(operation) ? operation : 'unknown';
    const key = `${label}|${status}`;
    const entry = this.counts.get(key) ?? { operation: label, status, count: 0, totalMs: 0 };
    entry.count += 1;
    entry.totalMs += durationMs;
    this.counts.set(key, entry);
  }

  render(): string {
    const lines = [
      '# HELP svc_api_requests_total API calls by operation and HTTP status.',
      '# TYPE svc_api_requests_total counter',
    ];
    for (const { operation, status, count } of this.counts.values()) {
      lines.push(`svc_api_requests_total{operation="${operation}",status="${status}"} ${count}`);
    }
    lines.push('# HELP svc_api_request_duration_ms_sum Summed API call duration in milliseconds.');
    lines.push('# TYPE svc_api_request_duration_ms_sum counter');
    for (const { operation, status, totalMs } of this.counts.values()) {
      lines.push(`svc_api_request_duration_ms_sum{operation="${operation}",status="${status}"} ${totalMs}`);
    }
    return lines.join('\n') + '\n';
  }
}
