import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BeforeApplicationShutdown, FactoryProvider, InjectionToken, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { ProbeSettings } from '@svc/config';
import type { ServiceName } from '@svc/contracts';

/** One thing a process needs to do its work: resolves when it is there, rejects (or takes too long) when not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** How a check went. Never the error's text: it may name hosts or users, and /ready is anonymous. */
export type CheckOutcome = 'ok' | 'failed' | 'timed out' | 'shutting down';

export interface ReadinessReport {
  service: ServiceName;
  status: 'ready' | 'not ready';
  checks: Record<string, CheckOutcome>;
}

/** A check that has not answered within this is taken as failed: a probe must answer well inside a kubelet's timeout. */
export const CHECK_TIMEOUT_MS = 2000;

/** Runs every check at once; ready when each answered in time. While draining, not ready whatever they say. */
export async function readinessOf(service: ServiceName, checks: readonly ReadinessCheck[], draining: boolean): Promise<ReadinessReport> {
  const outcomes = await Promise.all(checks.map(async (check) => [check.name, draining ? 'shutting down' : await outcomeOf(check)] as const));
  const ready = !draining && outcomes.every(([, outcome]) => outcome === 'ok');
  return { service, status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(outcomes) };
}

async function outcomeOf(check: ReadinessCheck): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.check().then((): CheckOutcome => 'ok', (): CheckOutcome => 'failed'), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** NATS answers a round trip (a flush): false while the connection is down or reconnecting. */
export function natsReachable(connection: NatsConnection): ReadinessCheck {
  return { name: 'nats', check: () => connection.flush() };
}

/**
 * The process's health probes over plain HTTP, apart from any API it serves: `/health` and `/live` answer 200 while its
 * event loop does (liveness: restart it otherwise); `/ready` answers 200 when every readiness check passes, else 503
 * with each check's outcome (readiness: send it no work, or no traffic, meanwhile). Once draining (the process is
 * stopping) `/ready` answers 503 at once.
 */
export class ProbeServer {
  private server: Server | undefined;
  private draining = false;
  private readonly startedAt = Date.now();

  constructor(
    private readonly service: ServiceName,
    private readonly settings: ProbeSettings,
    private readonly checks: readonly ReadinessCheck[],
  ) {}

  /** Listens; resolves with the port (the one asked for). */
  async start(): Promise<number> {
    const server = createServer((request, response) => void this.answer(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.settings.port, this.settings.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  /** From now on /ready answers 503 "shutting down". */
  drain(): void {
    this.draining = true;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, { error: 'only GET' }, { allow: 'GET, HEAD' });
    if (path === '/health' || path === '/live') {
      return send(response, 200, { service: this.service, status: 'alive', uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000) });
    }
    if (path === '/ready') {
      const report = await readinessOf(this.service, this.checks, this.draining);
      return send(response, report.status === 'ready' ? 200 : 503, report);
    }
    return send(response, 404, { error: 'not found: the probes are /health, /live and /ready' });
  }
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}

/**
 * A ProbeServer in a Nest app's lifecycle: listening from module init (so /health answers while the app still waits for
 * what it needs, and /ready says what that is), draining when shutdown begins, closed when it ends. Without settings
 * (PROBE_PORT unset) it does nothing.
 */
export class ProbeHost implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly server: ProbeServer | null;

  constructor(service: ServiceName, settings: ProbeSettings | null, checks: readonly ReadinessCheck[]) {
    this.server = settings === null ? null : new ProbeServer(service, settings, checks);
  }

  async onModuleInit(): Promise<void> {
    await this.server?.start();
  }

  beforeApplicationShutdown(): void {
    this.server?.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }
}

/** The provider of an app's ProbeHost, its checks built from the providers named in `inject`. */
export function probeHostProvider<Deps extends unknown[]>(
  service: ServiceName,
  settings: ProbeSettings | null,
  inject: InjectionToken[],
  checksOf: (...deps: Deps) => ReadinessCheck[],
): FactoryProvider<ProbeHost> {
  return { provide: ProbeHost, inject, useFactory: (...deps: unknown[]) => new ProbeHost(service, settings, checksOf(...(deps as Deps))) };
}
