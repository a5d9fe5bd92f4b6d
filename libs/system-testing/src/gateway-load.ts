import type { HostileBody } from './hostile-bodies';
import { send, signedHeaders, type SignOptions } from './signed-client';

export interface GatewayLoadOptions {
  baseUrl: string;
  /** The body every caller sends over and over; none for a run without load. */
  body?: HostileBody;
  /** Sign each request with this key (an authenticated caller); without it the request carries no signature. */
  signWith?: SignOptions;
  /** The operation the bodies are posted to. */
  operation?: string;
  /** Callers sending at once, each waiting for its answer before it sends again. */
  callers: number;
  durationMs: number;
  /** How often /health is asked (one probe at a time: a late answer delays the next probe). */
  probeIntervalMs: number;
}

export interface GatewayLoadResult {
  /** Milliseconds each /health probe took, in the order sent. */
  healthMs: number[];
  /** Probes answered with anything but 200, or not at all. */
  healthFailures: number;
  /** Seconds each hostile request took to be answered. */
  hostileSeconds: number[];
  /** How many hostile requests got each status (0: the connection failed). */
  statuses: Record<number, number>;
  /** The first answer to a hostile request, cut to 500 characters: what such a caller is told. */
  sampleAnswer: string;
  wallSeconds: number;
}

const HEALTH_TIMEOUT_MS = 60_000;

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Keeps `callers` requests with `body` in flight against the gateway for `durationMs` while asking /health
 * every `probeIntervalMs`, and reports how long /health took: the gateway's responsiveness to everyone else.
 */
export async function measureGatewayUnderLoad(options: GatewayLoadOptions): Promise<GatewayLoadResult> {
  const started = performance.now();
  const deadline = started + options.durationMs;
  const result: GatewayLoadResult = { healthMs: [], healthFailures: 0, hostileSeconds: [], statuses: {}, sampleAnswer: '', wallSeconds: 0 };

  const probe = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      const ok = await fetch(`${options.baseUrl}/health`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status === 200;
        },
        () => false,
      );
      const took = performance.now() - sent;
      result.healthMs.push(took);
      if (!ok) result.healthFailures += 1;
      await pause(Math.max(0, options.probeIntervalMs - took));
    }
  };

  const caller = async (body: HostileBody) => {
    const operation = options.operation ?? 'CreateWarehouseReplication';
    const contentType = body.format === 'xml' ? 'application/xml' : 'application/json';
    while (performance.now() < deadline) {
      const headers = options.signWith
        ? signedHeaders(options.baseUrl, operation, contentType, body.body, options.signWith)
        : { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body.body)) };
      const sent = performance.now();
      const answer = await send(options.baseUrl, 'POST', `/api/${operation}`, headers, body.body).catch(() => ({ status: 0, body: '' }));
      result.hostileSeconds.push((performance.now() - sent) / 1000);
      result.statuses[answer.status] = (result.statuses[answer.status] ?? 0) + 1;
      if (result.sampleAnswer === '') result.sampleAnswer = `${answer.status} ${answer.body.slice(0, 500)}`;
    }
  };

  const { body } = options;
  await Promise.all([probe(), ...(body ? Array.from({ length: options.callers }, () => caller(body)) : [])]);
  result.wallSeconds = (performance.now() - started) / 1000;
  return result;
}
