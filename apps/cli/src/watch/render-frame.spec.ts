import { renderFrame, type FrameLayout } from './render-frame';
import type { ReplicationSnapshot, TableSnapshot } from './replication-snapshot';

const AT = new Date('2026-11-23T10:15:03.456Z');
const PLAIN: FrameLayout = { width: 160, unicodeBars: false };

function table(overrides: Partial<TableSnapshot> & Pick<TableSnapshot, 'name' | 'phase'>): TableSnapshot {
  return { rowsSeeded: 0, rowsEstimated: 0, lagSeconds: null, lastError: null, inFlightSeconds: null, ...overrides };
}

function snapshot(tables: TableSnapshot[], overrides: Partial<ReplicationSnapshot> = {}): ReplicationSnapshot {
  return { replicationId: 'r-1', replicationName: 'orders-to-dw', status: 'Running', lastError: null, tables, alerts: [], ...overrides };
}

describe('renderFrame', () => {
  it('shows each table by name: a bar, percent, rows, rate and ETA while seeding; lag when tracking', () => {
    const frame = renderFrame(
      {
        snapshot: snapshot([
          table({ name: '[sales].[order_lines]', phase: 'Seeding', rowsSeeded: 45_000, rowsEstimated: 100_000, inFlightSeconds: 30 }),
          table({ name: '[public].[customers]', phase: 'Tracking', rowsSeeded: 500, rowsEstimated: 500, lagSeconds: 3 }),
          table({ name: '[public].[events]', phase: 'Pending', rowsEstimated: 10 }),
          table({ name: '[public].[log]', phase: 'Untracked', rowsSeeded: 7, rowsEstimated: 7 }),
          table({ name: '[public].[big]', phase: 'Reseeding', rowsSeeded: 0, rowsEstimated: 0, inFlightSeconds: 2 }),
        ]),
        observedAt: AT,
      },
      PLAIN,
    );
    expect(frame).toEqual([
      // The table without a key is settled but never tracked: counted apart (issue 40).
      'Replication orders-to-dw  Running  1 of 5 tables tracking, 1 untracked  10:15:03 UTC',
      '  [public].[big]         Reseeding  [------------------------------] --%  0 rows',
      '  [public].[customers]   Tracking   lag 3s',
      '  [public].[events]      Pending    waiting to seed',
      '  [public].[log]         Untracked  no primary key: reseeded on schedule',
      '  [sales].[order_lines]  Seeding    [#############-----------------] 45%  45,000/100,000 rows  1,500 rows/s  ETA 37s',
    ]);
  });

  it('shows a chunked seed\'s chunks loaded of all beside its rows', () => {
    const chunked = snapshot([table({ name: '[public].[big]', phase: 'Seeding', rowsSeeded: 4_000, rowsEstimated: 10_000, inFlightSeconds: 4, seedChunks: { loaded: 5, total: 12 } })]);
    expect(renderFrame({ snapshot: chunked, observedAt: AT }, PLAIN)[1]).toBe(
      '  [public].[big]  Seeding    [############------------------] 40%  4,000/10,000 rows  chunks 5/12  1,000 rows/s  ETA 6s',
    );
  });

  it('draws block bars on a terminal; on a narrow one it narrows them, then leaves out the rate, the rows, the ETA', () => {
    const seeding = snapshot([table({ name: '[public].[t]', phase: 'Seeding', rowsSeeded: 1, rowsEstimated: 2, inFlightSeconds: 1 })]);
    const lineAt = (width: number) => renderFrame({ snapshot: seeding, observedAt: AT }, { width, unicodeBars: true })[1];
    expect(lineAt(90)).toBe('  [public].[t]  Seeding    [█████████████░░░░░░░░░░░░░░] 50%  1/2 rows  1.0 rows/s  ETA 1s');
    expect(lineAt(75)).toBe('  [public].[t]  Seeding    [██████░░░░░░] 50%  1/2 rows  1.0 rows/s  ETA 1s');
    expect(lineAt(62)).toBe('  [public].[t]  Seeding    [█████░░░░░░] 50%  1/2 rows  ETA 1s');
    expect(lineAt(51)).toBe('  [public].[t]  Seeding    [█████░░░░░] 50%  ETA 1s');
    expect(lineAt(44)).toBe('  [public].[t]  Seeding    [█████░░░░░░] 50%');
  });

  it('cuts every line to the width', () => {
    const frame = renderFrame(
      {
        snapshot: snapshot([table({ name: `[public].[${'x'.repeat(100)}]`, phase: 'Error', lastError: 'connection refused '.repeat(20) })]),
        observedAt: AT,
      },
      { width: 50, unicodeBars: true },
    );
    for (const line of frame) expect(Array.from(line).length).toBeLessThanOrEqual(50);
    expect(frame[1]).toBe('  [public].[xxxxxxxxx…  Error      failed  error:…');
  });

  it('shows a table error in short, on one line, with the last error and the latest alert of the replication', () => {
    const frame = renderFrame(
      {
        snapshot: snapshot([table({ name: '[public].[a]', phase: 'Error', lastError: 'COPY failed:\n  value too long\tfor column' })], {
          status: 'Failed',
          lastError: 'source unreachable:\nconnection refused',
          alerts: [
            { kind: 'Reseed', message: 'older', createdAt: '2026-11-23T10:00:00Z', state: 'Active' },
            { kind: 'SchemaChange', message: 'column added\nto [public].[a]', createdAt: '2026-11-23T10:10:00Z', state: 'Active' },
            // Acknowledged and resolved alerts are not counted, however new (issue 40).
            { kind: 'Failure', message: 'seen', createdAt: '2026-11-23T10:12:00Z', state: 'Acknowledged' },
            { kind: 'Validation', message: 'over', createdAt: '2026-11-23T10:13:00Z', state: 'Resolved' },
          ],
        }),
        observedAt: AT,
      },
      PLAIN,
    );
    expect(frame).toEqual([
      'Replication orders-to-dw  Failed  0 of 1 tables tracking  10:15:03 UTC',
      'Last error: source unreachable: connection refused',
      'Active alerts: 2, latest SchemaChange: column added to [public].[a]',
      '  [public].[a]  Error      failed  error: COPY failed: value too long for column',
    ]);
  });

  it('escapes control characters and escape sequences of hostile names and texts, so they reach the terminal as text', () => {
    const hostile = '[public].[\u001B[2J\u001B]0;pwned\u0007x\u009B31m\ry\u202Ez]';
    const frame = renderFrame(
      {
        snapshot: snapshot([table({ name: hostile, phase: 'Seeding\u001B[5m', lastError: `table ${hostile} failed` })], {
          replicationName: 'dw\u001B[31m',
          alerts: [{ kind: 'Failure\u0007', message: `\u001B[1A${hostile}`, createdAt: '', state: 'Active' }],
        }),
        observedAt: AT,
        notice: 'HTTP 503: \u001B[2K gone',
      },
      PLAIN,
    );
    const text = frame.join('\n');
    // No control or reordering character may remain, whatever the field.
    expect(text).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E]/);
    expect(frame[0]).toContain('Replication dw\\x1B[31m  Running');
    // Messages are put on one line first: the carriage return became a space.
    expect(frame[1]).toContain('Failure\\x07: \\x1B[1A[public].[\\x1B[2J\\x1B]0;pwned\\x07x\\x9B31m y\\u202Ez]');
    // The hostile phase is escaped too, and cut to its column.
    expect(frame[2]).toMatch(/^ {2}\[public\]\.\[\\x1B\[2J\\x1B\]0;pwned\\x07x\\x9B31m\\x0Dy\\u202Ez\] {2}Seeding\\… {2}error: table /);
    expect(frame[3]).toBe('! HTTP 503: \\x1B[2K gone');
  });

  it('says what it waits for before the first answer and before tables are discovered', () => {
    expect(renderFrame({ snapshot: undefined, observedAt: AT, notice: 'HTTP 503: registry not answering' }, PLAIN)).toEqual([
      'Waiting for the first answer  10:15:03 UTC',
      '! HTTP 503: registry not answering',
    ]);
    expect(renderFrame({ snapshot: snapshot([]), observedAt: AT }, PLAIN)).toEqual([
      'Replication orders-to-dw  Running  0 of 0 tables tracking  10:15:03 UTC',
      "  waiting for the service to discover the source's tables",
    ]);
  });

  it('fits a terminal with few rows: tables on their way first, then how many are left out', () => {
    const tables = ['a', 'b', 'c', 'd', 'e'].map((name) => table({ name, phase: name === 'd' ? 'Seeding' : 'Tracking', lagSeconds: 1 }));
    const frame = renderFrame({ snapshot: snapshot(tables), observedAt: AT, notice: 'slow' }, { ...PLAIN, maxLines: 5 });
    expect(frame).toHaveLength(5);
    expect(frame.slice(1)).toEqual([
      '  a  Tracking   lag 1s',
      expect.stringMatching(/^ {2}d {2}Seeding {4}\[-+\] --% {2}0 rows$/),
      '  … and 3 more tables',
      '! slow',
    ]);
  });
});
