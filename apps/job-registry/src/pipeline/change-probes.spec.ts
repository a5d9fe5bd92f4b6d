import type { ChangedTablesReply, ChangedTablesRequest } from '@svc/contracts';
import { table } from '../testing/pipeline-fixtures';
import { ChangeProbes, PROBE_TABLES_PER_REQUEST, type ChangeProbeSettings } from './change-probes';

/** Every start probes, every probe reads stamps: the rules below without the pacing. */
const UNPACED: ChangeProbeSettings = { probeIntervalMs: 0, schemaStampIntervalMs: 0 };

function probesAnswering(
  answer: (request: ChangedTablesRequest) => ChangedTablesReply,
  settings = UNPACED,
  now?: () => number,
): { probes: ChangeProbes; asked: ChangedTablesRequest[] } {
  const asked: ChangedTablesRequest[] = [];
  const probes = new ChangeProbes(
    async (request) => {
      asked.push(request);
      return answer(request);
    },
    settings,
    now,
  );
  return { probes, asked };
}

const failOnError = (error: unknown) => {
  throw error;
};

describe('ChangeProbes', () => {
  it('asks about the tracked tables with nothing in flight only (whether their last cycle moved rows or not), each at its watermark, and answers for that watermark', async () => {
    const stamps = { '[public].[a]': 's', '[public].[b]': 's', '[public].[gone]': 's' };
    const { probes, asked } = probesAnswering(() => ({ changed: ['[public].[a]'], unknown: ['[public].[gone]'], schemaStamps: stamps }));
    // The first probe sees every table for the first time: each gets a cycle, which describes it.
    await probes.start('r1', [table('[public].[b]', { lastVersion: '19' })], failOnError);
    asked.length = 0;
    const tables = [
      table('[public].[a]', { lastVersion: '10' }),
      table('[public].[b]', { lastVersion: '20' }),
      table('[public].[gone]', { lastVersion: '30' }),
      table('[public].[busy]', { lastCycleRows: 4 }),
      table('[public].[flying]', { inFlightWorkId: 'w' }),
      table('[public].[seeding]', { phase: 'Seeding', lastVersion: null }),
    ];
    await probes.start('r1', tables, failOnError);
    expect(asked).toEqual([
      {
        replicationId: 'r1',
        tables: [
          { tableName: '[public].[a]', version: '10' },
          { tableName: '[public].[b]', version: '20' },
          { tableName: '[public].[gone]', version: '30' },
          { tableName: '[public].[busy]', version: '100' },
        ],
        schemaStamps: true,
      },
    ]);
    expect(probes.verdict(tables[0])).toBe('changed');
    expect(probes.verdict(tables[1])).toBe('unchanged');
    // A table the probe could not judge gets its cycle, which says what is wrong.
    expect(probes.verdict(tables[2])).toBe('changed');
    // A table whose last cycle moved rows is judged like the others (issue 39); the reply has no stamp for it: changed.
    expect(probes.verdict(tables[3])).toBe('changed');
    // In flight when asked, or its watermark moved since: the next probe judges it (the planner waits for it a while).
    expect(probes.verdict(tables[4])).toBe('pending');
    expect(probes.verdict({ ...tables[1], lastVersion: '21' })).toBe('pending');
    // No probe of the replication has answered: nothing is known.
    expect(probes.verdict({ ...tables[1], replicationId: 'r2' })).toBeNull();
  });

  it('sends each watermark with the source incarnation stored with it, when one is', async () => {
    const { probes, asked } = probesAnswering(() => ({ changed: [], unknown: [], schemaStamps: {} }));
    await probes.start('r1', [table('[public].[a]', { lastVersion: '10', lastIncarnation: 'fork F1' }), table('[public].[b]', { lastVersion: '20' })], failOnError);
    expect(asked[0]?.tables).toEqual([
      { tableName: '[public].[a]', version: '10', incarnation: 'fork F1' },
      { tableName: '[public].[b]', version: '20' },
    ]);
  });

  it('resolves to whether it found a table to cycle, so the scheduler plans at once instead of at its next tick', async () => {
    let changed: string[] = [];
    const { probes } = probesAnswering(() => ({ changed, unknown: [], schemaStamps: { '[public].[a]': 's' } }));
    // The first probe counts every table as changed (nothing to compare its stamp with).
    await expect(probes.start('r1', [table('[public].[a]', { lastVersion: '1' })], failOnError)).resolves.toBe(true);
    await expect(probes.start('r1', [table('[public].[a]', { lastVersion: '2' })], failOnError)).resolves.toBe(false);
    changed = ['[public].[a]'];
    await expect(probes.start('r1', [table('[public].[a]', { lastVersion: '2' })], failOnError)).resolves.toBe(true);
    const errors: unknown[] = [];
    const failing = new ChangeProbes(() => Promise.reject(new Error('no extractor answered')), UNPACED);
    await expect(failing.start('r1', [table('[public].[a]')], (error) => errors.push(error))).resolves.toBe(false);
    expect(errors).toHaveLength(1);
  });

  it('runs one probe per replication at a time', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((done) => (release = done));
    const probes = new ChangeProbes(async () => {
      await gate;
      return { changed: [], unknown: [], schemaStamps: {} };
    }, UNPACED);
    const first = probes.start('r1', [table('[public].[a]')], failOnError);
    expect(first).not.toBeNull();
    expect(probes.start('r1', [table('[public].[a]')], failOnError)).toBeNull();
    release();
    await first;
    expect(probes.start('r1', [table('[public].[a]')], failOnError)).not.toBeNull();
  });

  it(`splits a replication of many tables into requests of at most ${PROBE_TABLES_PER_REQUEST}`, async () => {
    const { probes, asked } = probesAnswering((request) => ({
      changed: request.tables.slice(-1).map((t) => t.tableName),
      unknown: [],
      schemaStamps: Object.fromEntries(request.tables.map((t) => [t.tableName, 'same'])),
    }));
    const tables = Array.from({ length: 4500 }, (_, index) => table(`[public].[t${index}]`));
    await probes.start('r1', tables.map((subject) => ({ ...subject, lastVersion: '99' })), failOnError);
    asked.length = 0;
    await probes.start('r1', tables, failOnError);
    expect(asked.map((request) => request.tables.length)).toEqual([2000, 2000, 500]);
    expect(tables.filter((subject) => probes.verdict(subject) === 'changed').map((subject) => subject.tableName)).toEqual(['[public].[t1999]', '[public].[t3999]', '[public].[t4499]']);
  });

  it('reports a failed probe and keeps no answer from it; forget drops the last one', async () => {
    const { probes } = probesAnswering(() => ({ changed: [], unknown: [], schemaStamps: { '[public].[a]': 's' } }));
    await probes.start('r1', [table('[public].[a]', { lastVersion: '1' })], failOnError);
    await probes.start('r1', [table('[public].[a]')], failOnError);
    expect(probes.verdict(table('[public].[a]'))).toBe('unchanged');
    const failing = new ChangeProbes(async () => Promise.reject(new Error('source unreachable')), UNPACED);
    const errors: unknown[] = [];
    await failing.start('r1', [table('[public].[a]')], (error) => errors.push(error));
    expect(errors).toEqual([new Error('source unreachable')]);
    expect(failing.verdict(table('[public].[a]'))).toBeNull();
    probes.forget('r1');
    expect(probes.verdict(table('[public].[a]'))).toBeNull();
  });

  it('judges every table changed at a replication\'s first probe only; a table new to a probed replication keeps its stamp as it is', async () => {
    const { probes } = probesAnswering((request) => ({ changed: [], unknown: [], schemaStamps: Object.fromEntries(request.tables.map((t) => [t.tableName, 's'])) }));
    await probes.start('r1', [table('[public].[a]')], failOnError);
    expect(probes.verdict(table('[public].[a]'))).toBe('changed');
    await probes.start('r1', [table('[public].[a]', { lastVersion: '101' }), table('[public].[seeded]')], failOnError);
    expect(probes.verdict(table('[public].[seeded]'))).toBe('unchanged');
    // After a failed probe nothing is known: every table is judged afresh, once.
    probes.forget('r1');
    await probes.start('r1', [table('[public].[seeded]', { lastVersion: '102' })], failOnError);
    expect(probes.verdict(table('[public].[seeded]', { lastVersion: '102' }))).toBe('changed');
  });

  it('cycles a table whose schema stamp moved though no row changed, and keeps it due until its watermark moves', async () => {
    let stamp = 'v1';
    let changed: string[] = [];
    const { probes } = probesAnswering(() => ({ changed, unknown: [], schemaStamps: { '[public].[a]': stamp } }));
    const at = (version: string) => table('[public].[a]', { lastVersion: version });
    await probes.start('r1', [at('10')], failOnError);
    expect(probes.verdict(at('10'))).toBe('changed');
    await probes.start('r1', [at('11')], failOnError);
    expect(probes.verdict(at('11'))).toBe('unchanged');
    stamp = 'v2';
    await probes.start('r1', [at('11')], failOnError);
    expect(probes.verdict(at('11'))).toBe('changed');
    // Later probes see the same stamp again: the table is still due until its cycle moves the watermark.
    await probes.start('r1', [at('11')], failOnError);
    expect(probes.verdict(at('11'))).toBe('changed');
    await probes.start('r1', [at('12')], failOnError);
    expect(probes.verdict(at('12'))).toBe('unchanged');
    changed = ['[public].[a]'];
    await probes.start('r1', [at('12')], failOnError);
    expect(probes.verdict(at('12'))).toBe('changed');
  });

  it('starts a replication\'s probes at most every probeIntervalMs, and asks for schema stamps at the first and then every schemaStampIntervalMs', async () => {
    let clock = 1000;
    let stamp = 'v1';
    const { probes, asked } = probesAnswering(
      (request): ChangedTablesReply => ({
        changed: [],
        unknown: [],
        schemaStamps: request.schemaStamps === true ? Object.fromEntries(request.tables.map((t) => [t.tableName, stamp])) : {},
      }),
      { probeIntervalMs: 250, schemaStampIntervalMs: 5000 },
      () => clock,
    );
    const first = table('[public].[a]', { lastVersion: '10' });
    // Its first probe judged it changed; its cycle ran and moved the watermark.
    const a = table('[public].[a]', { lastVersion: '11' });
    await probes.start('r1', [first], failOnError);
    expect(probes.start('r1', [a], failOnError)).toBeNull();
    clock += 249;
    expect(probes.start('r1', [a], failOnError)).toBeNull();
    clock += 1;
    await probes.start('r1', [a], failOnError);
    expect(asked.map((request) => request.schemaStamps)).toEqual([true, false]);
    // A definition change between stamp reads is seen at the next one; meanwhile the table is judged by its rows only.
    stamp = 'v2';
    expect(probes.verdict(a)).toBe('unchanged');
    clock += 4750;
    await probes.start('r1', [a], failOnError);
    expect(asked.map((request) => request.schemaStamps)).toEqual([true, false, true]);
    expect(probes.verdict(a)).toBe('changed');
    // A table new to the probe (just seeded) is stamped at once: the stamp it has now is its baseline, and a definition
    // change in the next seconds must not become it.
    clock += 250;
    const seeded = table('[public].[seeded]', { lastVersion: '5' });
    await probes.start('r1', [a, seeded], failOnError);
    clock += 250;
    await probes.start('r1', [a, seeded], failOnError);
    expect(asked.slice(-2).map((request) => request.schemaStamps)).toEqual([true, false]);
    // After a failure the next probe is a first probe again: it reads stamps whatever the interval.
    probes.forget('r1');
    clock += 250;
    await probes.start('r1', [a], failOnError);
    expect(asked.at(-1)?.schemaStamps).toBe(true);
  });
});
