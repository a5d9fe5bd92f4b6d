import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { Pool } from 'pg';
import {
  ADMIN_KEY,
  jsonDeepArrays,
  jsonHugeString,
  jsonManyKeys,
  measureGatewayUnderLoad,
  TestStack,
  xmlManyElements,
  type HostileBody,
} from '@svc/system-testing';
import { appendSection } from './bench-report';
import { cpuSnapshot, cpuSpent } from './cpu-usage';
import { renderGatewayLoadSection, type GatewayLoadFigure } from './gateway-load-report';
import { HEALTH_PROBE_INTERVAL_MS, type GatewayLoadSettings } from './gateway-load-settings';
import { latencyStats } from './latency-stats';
import { machineInfo } from './machine-info';
import { peakRssBytes } from './peak-memory';

interface Load {
  body?: HostileBody;
  signed: boolean;
}

/** No load first (the baseline), then each hostile body from an authenticated caller, and the XML one unsigned. */
function loads(): Load[] {
  const xml = xmlManyElements();
  return [
    { signed: false },
    { body: xml, signed: true },
    { body: xml, signed: false },
    { body: jsonManyKeys(), signed: true },
    { body: jsonDeepArrays(), signed: true },
    { body: jsonHugeString(), signed: true },
  ];
}

/** The commit measured, marked when tracked files differ from it. */
function revision(repoRoot: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repoRoot, encoding: 'utf8' }).trim() !== '';
    return changed ? `${commit} with uncommitted changes` : commit;
  } catch {
    return 'unknown revision';
  }
}

/**
 * `npm run bench -- gateway-load`: job-registry and api-gateway from dist/, then for each load `callers`
 * callers post the same hostile body over and over while /health is asked every 100 ms.
 */
export async function runGatewayLoadBenchmark(settings: GatewayLoadSettings, repoRoot: string, log: (line: string) => void): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  // The signed loads measure reading hostile bodies, which a key's rate limit (issue 36) would mostly answer 429 before.
  const stack = new TestStack({ env: { LOG_LEVEL: 'warn', KEY_RATE_LIMIT_PER_SECOND: '1000000', KEY_RATE_LIMIT_BURST: '1000000' } });
  let control: Pool | undefined;
  try {
    log('starting job-registry and api-gateway, a private nats-server and a temporary control database');
    await stack.start();
    control = new Pool({ connectionString: stack.control.url, max: 1 });
    const startedAt = new Date();
    const gatewayPid = { 'api-gateway': stack.gateway.pid };
    const figures: GatewayLoadFigure[] = [];
    for (const load of loads()) {
      const name = load.body ? `${load.body.name}, ${load.signed ? 'signed' : 'unsigned'}` : 'none';
      log(`load: ${name} (${settings.callers} callers, ${settings.seconds} s)`);
      const before = cpuSnapshot(gatewayPid);
      const measured = await measureGatewayUnderLoad({
        baseUrl: stack.baseUrl,
        ...(load.body && { body: load.body }),
        ...(load.signed && { signWith: ADMIN_KEY }),
        callers: settings.callers,
        durationMs: settings.seconds * 1000,
        probeIntervalMs: HEALTH_PROBE_INTERVAL_MS,
      });
      const spent = cpuSpent(before, cpuSnapshot(gatewayPid));
      const figure: GatewayLoadFigure = {
        load: name,
        body: load.body?.description ?? '–',
        health: latencyStats(measured.healthMs),
        healthFailures: measured.healthFailures,
        hostile: latencyStats(measured.hostileSeconds),
        statuses: measured.statuses,
        sampleAnswer: measured.sampleAnswer,
        gatewayCpuSeconds: spent.processes['api-gateway'] ?? Number.NaN,
        wallSeconds: measured.wallSeconds,
      };
      log(`  /health p50 ${figure.health.p50.toFixed(0)} ms, p99 ${figure.health.p99.toFixed(0)} ms, max ${figure.health.max.toFixed(0)} ms; hostile answers ${JSON.stringify(figure.statuses)}`);
      figures.push(figure);
    }
    const section = renderGatewayLoadSection({
      startedAt,
      machine: await machineInfo(control, loadAtStart),
      settings,
      revision: revision(repoRoot),
      figures,
      gatewayPeakRssBytes: peakRssBytes(stack.gateway.pid),
    });
    process.stdout.write(`\n${section}\n`);
    appendSection(settings.reportFile, section);
    log(`appended to ${settings.reportFile}`);
  } finally {
    await control?.end();
    await stack.stop();
  }
}
