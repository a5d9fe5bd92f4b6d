import type { DescribedTable } from '../api/wire-types.js';
import { formatAgo, formatCount, formatDuration, formatLag, formatRate, formatTimestamp } from '../render/format.js';
import type { SeedProgress } from '../render/seed-progress.js';
import { h, type VElement } from '../render/vnode.js';
import { badge, link } from './common.js';

/** The bar, its numbers, rate and ETA of a table that is copying its rows. */
export function progressView(progress: SeedProgress): VElement {
  const numbers = `${formatCount(progress.rowsCopied)} / ${formatCount(progress.rowsEstimated)} rows (${Math.floor(progress.percent)}%)`;
  return h(
    'div.progress',
    null,
    h('progress', { attrs: { max: Math.max(progress.rowsEstimated, 1), value: Math.min(progress.rowsCopied, Math.max(progress.rowsEstimated, 1)), 'aria-label': numbers } }),
    h('span.progress-numbers', null, numbers),
    h('span.progress-rate', null, progress.rate === null ? 'measuring rate…' : formatRate(progress.rate)),
    h('span.progress-eta', null, progress.etaSeconds === null ? '' : `ETA ${formatDuration(progress.etaSeconds)}`),
  );
}

export function tablesView(replicationId: string, tables: readonly DescribedTable[], progress: ReadonlyMap<string, SeedProgress>, now: Date): VElement {
  if (tables.length === 0) return h('p.empty', null, 'No tables yet (the source is listed when the replication starts).');
  return h(
    'table.tables',
    null,
    h('thead', null, h('tr', null, ['Table', 'Phase', 'Progress', 'Lag', 'Last cycle', 'Last error'].map((title) => h('th', null, title)))),
    h(
      'tbody',
      null,
      tables.map((table) => {
        const copying = progress.get(table.name);
        return h(
          'tr',
          { attrs: { 'data-table': table.name } },
          h('td.table-name', null, link({ page: 'table', replicationId, tableName: table.name }, table.name)),
          h('td', null, badge('phase', table.phase)),
          h('td', null, copying ? [progressView(copying), chunksView(table)] : `${formatCount(table.rowsSeeded)} rows seeded`),
          h('td.num', null, formatLag(table.lagSeconds)),
          h('td', null, table.lastCycleAt ? h('time', { attrs: { datetime: table.lastCycleAt, title: formatTimestamp(table.lastCycleAt) } }, formatAgo(table.lastCycleAt, now)) : '—'),
          h('td.error-text', null, table.lastError ?? ''),
        );
      }),
    ),
  );
}

/** A chunked seed's chunks loaded of all, in words; null when the table has no chunked seed under way. */
export function chunksText(table: DescribedTable): string | null {
  if (table.seedChunks === undefined || table.seedChunks === null) return null;
  return `${formatCount(table.seedChunksLoaded ?? 0)} of ${formatCount(table.seedChunks)} chunks loaded`;
}

function chunksView(table: DescribedTable): VElement | null {
  const text = chunksText(table);
  return text === null ? null : h('span.progress-chunks', null, text);
}

/** Everything Describe says about one table. */
export function tableDetailView(table: DescribedTable, progress: SeedProgress | undefined, now: Date): VElement {
  const rows: [string, string | VElement][] = [
    ['Phase', badge('phase', table.phase)],
    ['Rows seeded', `${formatCount(table.rowsSeeded)} of about ${formatCount(table.rowsEstimated)}`],
    ...(chunksText(table) === null ? [] : ([['Seed chunks', chunksText(table) ?? '']] as [string, string][])),
    ['Lag', formatLag(table.lagSeconds)],
    ['Last cycle', table.lastCycleAt ? `${formatTimestamp(table.lastCycleAt)} (${formatAgo(table.lastCycleAt, now)})` : '—'],
    ['Last change-tracking version', table.lastVersion ?? '—'],
    ['Work in flight', table.inFlightSeconds === undefined ? 'none' : `${formatDuration(table.inFlightSeconds)} (last progress ${formatAgo(table.lastProgressAt, now)})`],
    ['Change cycle timeout', table.ctTimeoutInMinutes === undefined ? 'none' : `${table.ctTimeoutInMinutes} min`],
    ['Next attempt', table.nextAttemptAt ? formatTimestamp(table.nextAttemptAt) : '—'],
    ['Last validation', lastValidationText(table, now)],
    ['Last error', table.lastError ?? 'none'],
    ...(table.lastErrorDetail ? ([['Error detail', table.lastErrorDetail]] as [string, string][]) : []),
  ];
  return h(
    'section.table-detail',
    null,
    progress ? progressView(progress) : null,
    h('dl.facts', null, rows.map(([term, value]) => [h('dt', null, term), h('dd', null, value)])),
  );
}

/** The table's last validation in words: its state, how many keys differed, when it ended. */
function lastValidationText(table: DescribedTable, now: Date): string {
  const last = table.lastValidation;
  if (!last) return 'never (svc validate, or StartReplicationValidation)';
  const keys = last.state === 'Mismatched' ? `, ${formatCount(last.mismatchedKeys)} key(s) differ` : '';
  return `${last.state}${keys}, ${formatTimestamp(last.endedAt)} (${formatAgo(last.endedAt, now)})`;
}
