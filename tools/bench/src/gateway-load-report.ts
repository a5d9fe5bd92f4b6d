import type { MachineInfo } from './bench-report';
import type { GatewayLoadSettings } from './gateway-load-settings';
import { HEALTH_PROBE_INTERVAL_MS } from './gateway-load-settings';
import type { LatencyStats } from './latency-stats';

export interface GatewayLoadFigure {
  /** e.g. "xml-elements, signed" or "none". */
  load: string;
  /** What the body holds, e.g. "131,061 empty elements". */
  body: string;
  /** Milliseconds /health took. */
  health: LatencyStats;
  healthFailures: number;
  /** Seconds each hostile request took; count 0 for the run without load. */
  hostile: LatencyStats;
  /** e.g. { 400: 57 }. */
  statuses: Record<number, number>;
  sampleAnswer: string;
  gatewayCpuSeconds: number;
  wallSeconds: number;
}

export interface GatewayLoadResult {
  startedAt: Date;
  machine: MachineInfo;
  settings: GatewayLoadSettings;
  /** The commit measured (with "+changes" when the work tree differed from it). */
  revision: string;
  figures: GatewayLoadFigure[];
  gatewayPeakRssBytes: number | null;
}

const MIB = 1024 * 1024;

function fixed(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

function statusList(statuses: Record<number, number>): string {
  const entries = Object.entries(statuses);
  return entries.length ? entries.map(([status, count]) => `${count}× ${status === '0' ? 'no answer' : status}`).join(', ') : '–';
}

/** The first line of an answer, short enough for a table's note. */
function shortAnswer(answer: string): string {
  const line = answer.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The dated Markdown section appended to BENCHMARKS.md by `npm run bench -- gateway-load`. */
export function renderGatewayLoadSection(result: GatewayLoadResult): string {
  const { machine, settings } = result;
  const when = result.startedAt.toISOString().slice(0, 16).replace('T', ' ');
  const row = (figure: GatewayLoadFigure) =>
    `| ${figure.load} | ${figure.body} | ${statusList(figure.statuses)} | ` +
    `${figure.hostile.count ? `${fixed(figure.hostile.p50, 2)} / ${fixed(figure.hostile.max, 2)}` : '–'} | ` +
    `${figure.health.count} | ${fixed(figure.health.p50, 0)} | ${fixed(figure.health.p99, 0)} | ${fixed(figure.health.max, 0)} | ` +
    `${figure.healthFailures} | ${fixed(figure.gatewayCpuSeconds)} |`;
  const answers = result.figures.filter((figure) => figure.sampleAnswer !== '').map((figure) => `- ${figure.load}: \`${shortAnswer(figure.sampleAnswer)}\``);
  return [
    `## ${when} UTC — api-gateway under hostile bodies, ${settings.callers} callers, ${settings.seconds} s each`,
    '',
    `- Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${fixed(machine.memoryBytes / 1024 / MIB)} GiB RAM, ${machine.os}, Node.js ${machine.node}`,
    `- Load average (1 min): ${fixed(machine.loadAverage.start, 2)} at the start, ${fixed(machine.loadAverage.end, 2)} at the end`,
    `- Code: ${result.revision}; BENCH_GATEWAY_CALLERS=${settings.callers}, BENCH_GATEWAY_SECONDS=${settings.seconds}; /health asked every ${HEALTH_PROBE_INTERVAL_MS} ms, one probe at a time`,
    '',
    '| load | body (just under 1 MiB) | answers | hostile call p50 / max s | /health probes | p50 ms | p99 ms | max ms | failed | gateway CPU-s |',
    '|---|---|---|--:|--:|--:|--:|--:|--:|--:|',
    ...result.figures.map(row),
    '',
    `Peak RSS (VmHWM) of the api-gateway: ${result.gatewayPeakRssBytes === null ? 'n/a' : `${fixed(result.gatewayPeakRssBytes / MIB, 0)} MiB`}.`,
    '',
    'What a hostile caller was told (first answer of each load):',
    '',
    ...answers,
    '',
  ].join('\n');
}
