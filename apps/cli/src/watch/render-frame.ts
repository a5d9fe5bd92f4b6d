import { formatCount, formatDuration, formatPercent, formatRate } from './format-numbers';
import type { ReplicationSnapshot, TableSnapshot } from './replication-snapshot';
import { seedProgress } from './seed-progress';
import { displayLength, escapeForTerminal, fitToWidth, oneLineForTerminal, truncateToWidth } from './terminal-text';

export interface FrameLayout {
  /** Columns a line may use; every line is cut to it. */
  width: number;
  /** Lines the frame may take (a TTY's rows, less one); unbounded when absent. */
  maxLines?: number;
  /** Block characters for the bars (a TTY); `#` and `-` otherwise. */
  unicodeBars: boolean;
}

export interface FrameInput {
  /** Undefined until the first answer. */
  snapshot: ReplicationSnapshot | undefined;
  observedAt: Date;
  /** A one-line note under the tables, e.g. why the last poll failed. Raw text: it is escaped here. */
  notice?: string;
}

const PHASE_WIDTH = 9; // 'Reseeding'
const MIN_BAR_WIDTH = 10;
const MAX_BAR_WIDTH = 30;
const SEEDING_PHASES: readonly string[] = ['Seeding', 'Reseeding'];
const SETTLED_PHASES: readonly string[] = ['Tracking', 'Untracked'];

function clock(at: Date): string {
  return `${at.toISOString().slice(11, 19)} UTC`;
}

export function progressBar(fraction: number | null, width: number, unicode: boolean): string {
  const [full, empty] = unicode ? ['█', '░'] : ['#', '-'];
  const filled = fraction === null ? 0 : Math.floor(fraction * width);
  return `[${full.repeat(filled)}${empty.repeat(width - filled)}]`;
}

/** Numbers in order of preference: on a narrow line the rate goes first, then the row counts, then the ETA. */
function seedingNumberChoices(table: TableSnapshot): string[][] {
  const progress = seedProgress(table);
  const percent = progress.fraction === null ? '--%' : formatPercent(progress.fraction);
  const rows =
    progress.fraction === null ? `${formatCount(progress.rowsSeeded)} rows` : `${formatCount(progress.rowsSeeded)}/${formatCount(progress.rowsEstimated)} rows`;
  const rate = progress.rowsPerSecond === null ? [] : [formatRate(progress.rowsPerSecond)];
  const eta = progress.etaSeconds === null ? [] : [`ETA ${formatDuration(progress.etaSeconds)}`];
  const chunks = table.seedChunks === undefined || table.seedChunks === null ? [] : [`chunks ${formatCount(table.seedChunks.loaded)}/${formatCount(table.seedChunks.total)}`];
  return [[percent, rows, ...chunks, ...rate, ...eta], [percent, rows, ...chunks, ...eta], [percent, ...chunks, ...eta], [percent, ...eta], [percent]];
}

function seedingDetail(table: TableSnapshot, room: number, unicode: boolean): string {
  const choices = seedingNumberChoices(table).map((parts) => parts.join('  '));
  const barCost = MIN_BAR_WIDTH + 3; // '[', ']' and a space
  const numbers = choices.find((choice) => displayLength(choice) + barCost <= room) ?? choices[choices.length - 1];
  const barWidth = Math.min(MAX_BAR_WIDTH, Math.max(MIN_BAR_WIDTH, room - displayLength(numbers) - 3));
  return `${progressBar(seedProgress(table).fraction, barWidth, unicode)} ${numbers}`;
}

function phaseDetail(table: TableSnapshot, room: number, unicode: boolean): string {
  if (SEEDING_PHASES.includes(table.phase)) return seedingDetail(table, room, unicode);
  switch (table.phase) {
    case 'Tracking':
      return `lag ${table.lagSeconds === null ? '-' : formatDuration(table.lagSeconds)}`;
    case 'Untracked':
      return 'no primary key: reseeded on schedule';
    case 'Pending':
      return 'waiting to seed';
    case 'Error':
      return 'failed';
    default:
      return '';
  }
}

function tableLine(table: TableSnapshot, nameWidth: number, layout: FrameLayout): string {
  const room = layout.width - nameWidth - PHASE_WIDTH - 6;
  const detail = phaseDetail(table, room, layout.unicodeBars);
  const error = table.lastError === null ? '' : `${detail === '' ? '' : '  '}error: ${oneLineForTerminal(table.lastError)}`;
  const line = `  ${fitToWidth(escapeForTerminal(table.name), nameWidth)}  ${fitToWidth(escapeForTerminal(table.phase), PHASE_WIDTH)}  ${detail}${error}`;
  return truncateToWidth(line.trimEnd(), layout.width);
}

function byName(a: TableSnapshot, b: TableSnapshot): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function headerLines(snapshot: ReplicationSnapshot, observedAt: Date): string[] {
  const tracking = snapshot.tables.filter((table) => table.phase === 'Tracking').length;
  // A table without a key is settled too, but it is never tracked: counted apart, not as tracking.
  const untracked = snapshot.tables.filter((table) => table.phase === 'Untracked').length;
  const name = escapeForTerminal(snapshot.replicationName || snapshot.replicationId);
  const counts = `${tracking} of ${snapshot.tables.length} tables tracking${untracked > 0 ? `, ${untracked} untracked` : ''}`;
  const lines = [`Replication ${name}  ${escapeForTerminal(snapshot.status)}  ${counts}  ${clock(observedAt)}`];
  if (snapshot.lastError !== null) lines.push(`Last error: ${oneLineForTerminal(snapshot.lastError)}`);
  const active = snapshot.alerts.filter((alert) => alert.state === 'Active');
  if (active.length > 0) {
    const latest = active.reduce((newest, alert) => (alert.createdAt > newest.createdAt ? alert : newest));
    lines.push(`Active alerts: ${active.length}, latest ${escapeForTerminal(latest.kind)}: ${oneLineForTerminal(latest.message)}`);
  }
  if (snapshot.tables.length === 0) lines.push("  waiting for the service to discover the source's tables");
  return lines;
}

/** With too little room, tables still on their way are shown before the settled ones, then a count of the rest. */
function visibleTables(tables: TableSnapshot[], room: number | undefined): { shown: TableSnapshot[]; hidden: number } {
  const sorted = [...tables].sort(byName);
  if (room === undefined || sorted.length <= room) return { shown: sorted, hidden: 0 };
  const budget = Math.max(0, room - 1);
  const moving = sorted.filter((table) => !SETTLED_PHASES.includes(table.phase));
  const settled = sorted.filter((table) => SETTLED_PHASES.includes(table.phase));
  const shown = [...moving, ...settled].slice(0, budget).sort(byName);
  return { shown, hidden: sorted.length - shown.length };
}

/** The lines of one watch frame: a header, one line per table, then the notice; none longer than `layout.width`. */
export function renderFrame(input: FrameInput, layout: FrameLayout): string[] {
  const notice = input.notice === undefined ? [] : [`! ${oneLineForTerminal(input.notice)}`];
  if (input.snapshot === undefined) {
    return [`Waiting for the first answer  ${clock(input.observedAt)}`, ...notice].map((line) => truncateToWidth(line, layout.width));
  }
  const header = headerLines(input.snapshot, input.observedAt);
  const room = layout.maxLines === undefined ? undefined : layout.maxLines - header.length - notice.length;
  const { shown, hidden } = visibleTables(input.snapshot.tables, room);
  const longestName = Math.max(0, ...shown.map((table) => displayLength(escapeForTerminal(table.name))));
  const nameWidth = Math.min(longestName, Math.max(16, Math.floor(layout.width * 0.4)));
  const tables = shown.map((table) => tableLine(table, nameWidth, layout));
  if (hidden > 0) tables.push(`  … and ${hidden} more tables`);
  // A header and notice taller than a tiny terminal are cut too: redrawing in place needs the frame to fit.
  return [...header, ...tables, ...notice].slice(0, layout.maxLines).map((line) => truncateToWidth(line, layout.width));
}
