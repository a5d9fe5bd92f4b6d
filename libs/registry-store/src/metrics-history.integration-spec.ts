import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { reserveTempDatabase } from '@svc/testing';
import { ensureDatabase } from './ensure-database';
import { MetricsHistoryRepository } from './metrics-history-repository';
import { migrate } from './migrate';

const database = reserveTempDatabase('svc_metrics_test');
const ORDERS = '[dbo].[Orders]';
const LINES = '[dbo].[Lines]';

describe('metrics history against PostgreSQL', () => {
  let pool: Pool;
  let history: MetricsHistoryRepository;

  beforeAll(async () => {
    await ensureDatabase(database.url);
    pool = new Pool({ connectionString: database.url, max: 4 });
    await migrate(pool);
    history = new MetricsHistoryRepository(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await database.drop();
  });

  async function newReplication(): Promise<string> {
    const result = await pool.query<{ id: string }>(
      `INSERT INTO replications (name, status, config, secrets) VALUES ($1, 'Running', '{}'::jsonb, '\\x00'::bytea) RETURNING id`,
      [`metrics-${randomUUID()}`],
    );
    return result.rows[0]?.id ?? '';
  }

  it('sums each minute of a table: cycles, rows, the last and the highest lag, mean and longest cycle; seed parts add rows only', async () => {
    const replicationId = await newReplication();
    const at = (time: string): Date => new Date(`2026-11-25T10:${time}Z`);
    await history.record({ replicationId, tableName: ORDERS, at: at('00:05'), rowsApplied: 1000 });
    await history.record({ replicationId, tableName: ORDERS, at: at('00:10'), rowsApplied: 5, cycle: { lagSeconds: 4, durationMs: 200 } });
    await history.record({ replicationId, tableName: ORDERS, at: at('00:50'), rowsApplied: 3, cycle: { lagSeconds: 2.5, durationMs: 400 } });
    await history.record({ replicationId, tableName: ORDERS, at: at('00:55'), rowsApplied: 0, cycle: { lagSeconds: 1, durationMs: null } });
    await history.record({ replicationId, tableName: ORDERS, at: at('01:30'), rowsApplied: 2, cycle: { lagSeconds: 7, durationMs: 100 } });
    await history.record({ replicationId, tableName: LINES, at: at('00:20'), rowsApplied: 9, cycle: { lagSeconds: 3, durationMs: 50 } });

    const tables = await history.history({ replicationId, since: at('00:00'), stepMinutes: 1 });
    expect(tables).toEqual([
      { name: LINES, points: [{ at: '2026-11-25T10:00:00.000Z', cycles: 1, rowsApplied: 9, lagSeconds: 3, maxLagSeconds: 3, avgCycleMs: 50, maxCycleMs: 50 }] },
      {
        name: ORDERS,
        points: [
          { at: '2026-11-25T10:00:00.000Z', cycles: 3, rowsApplied: 1008, lagSeconds: 1, maxLagSeconds: 4, avgCycleMs: 300, maxCycleMs: 400 },
          { at: '2026-11-25T10:01:00.000Z', cycles: 1, rowsApplied: 2, lagSeconds: 7, maxLagSeconds: 7, avgCycleMs: 100, maxCycleMs: 100 },
        ],
      },
    ]);

    const fiveMinutes = await history.history({ replicationId, tableName: ORDERS, since: at('00:00'), stepMinutes: 5 });
    expect(fiveMinutes).toEqual([
      { name: ORDERS, points: [{ at: '2026-11-25T10:00:00.000Z', cycles: 4, rowsApplied: 1010, lagSeconds: 7, maxLagSeconds: 7, avgCycleMs: 233, maxCycleMs: 400 }] },
    ]);
    expect(await history.history({ replicationId, since: at('02:00'), stepMinutes: 1 })).toEqual([]);
  });

  it('keeps a minute with seed rows only without a lag or a cycle duration', async () => {
    const replicationId = await newReplication();
    await history.record({ replicationId, tableName: ORDERS, at: new Date('2026-11-25T11:00:00Z'), rowsApplied: 500 });
    expect(await history.history({ replicationId, since: new Date('2026-11-25T10:00:00Z'), stepMinutes: 60 })).toEqual([
      { name: ORDERS, points: [{ at: '2026-11-25T11:00:00.000Z', cycles: 0, rowsApplied: 500, lagSeconds: null, maxLagSeconds: null, avgCycleMs: null, maxCycleMs: null }] },
    ]);
  });

  it('drops samples older than the cut-off, and a deleted replication takes its history with it', async () => {
    const replicationId = await newReplication();
    await history.record({ replicationId, tableName: ORDERS, at: new Date('2026-11-10T10:00:00Z'), rowsApplied: 1 });
    await history.record({ replicationId, tableName: ORDERS, at: new Date('2026-11-24T10:00:00Z'), rowsApplied: 2 });
    expect(await history.prune(new Date('2026-11-18T10:00:00Z'))).toBeGreaterThanOrEqual(1);
    const left = await history.history({ replicationId, since: new Date('2026-11-01T00:00:00Z'), stepMinutes: 60 });
    expect(left.flatMap((table) => table.points.map((point) => point.rowsApplied))).toEqual([2]);
    await pool.query('DELETE FROM replications WHERE id = $1', [replicationId]);
    expect(await history.history({ replicationId, since: new Date('2026-11-01T00:00:00Z'), stepMinutes: 60 })).toEqual([]);
  });
});
