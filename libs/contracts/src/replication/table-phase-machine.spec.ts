import { TABLE_PHASES, type TablePhase } from './replication-status';
import { TABLE_EVENTS, TABLE_REFUSALS, transition, type TableEvent, type TableFacts, type TableRefusal } from './table-phase-machine';

type Expected = TablePhase | TableRefusal | ((facts: TableFacts) => TablePhase);

const afterSeed = ({ tracked }: TableFacts): TablePhase => (tracked ? 'Tracking' : 'Untracked');
const resumed = ({ tracked, hasWatermark, seeded }: TableFacts): TablePhase =>
  tracked && hasWatermark ? 'Tracking' : !tracked && seeded ? 'Untracked' : 'Pending';

/**
 * Written from the pipeline's rules, not from the machine: a phase or event added to the enums has no row
 * here, and its cases fail until one is written.
 */
const EXPECTED: Record<string, Partial<Record<string, Expected>>> = {
  'seed-claimed': { Pending: 'Seeding', Seeding: 'Seeding', Tracking: 'Reseeding', Reseeding: 'Reseeding', Untracked: 'Reseeding', Error: 'in-error' },
  'changes-claimed': { Pending: 'not-tracking', Seeding: 'not-tracking', Tracking: 'Tracking', Reseeding: 'not-tracking', Untracked: 'not-tracking', Error: 'in-error' },
  'seed-part-loaded': {
    Pending: 'no-seed-in-flight',
    Seeding: 'Seeding',
    Tracking: 'no-seed-in-flight',
    Reseeding: 'Reseeding',
    Untracked: 'no-seed-in-flight',
    Error: 'no-seed-in-flight',
  },
  'seed-loaded': {
    Pending: 'no-seed-in-flight',
    Seeding: afterSeed,
    Tracking: 'no-seed-in-flight',
    Reseeding: afterSeed,
    Untracked: 'no-seed-in-flight',
    Error: 'no-seed-in-flight',
  },
  'changes-loaded': {
    Pending: 'no-changes-in-flight',
    Seeding: 'no-changes-in-flight',
    Tracking: 'Tracking',
    Reseeding: 'no-changes-in-flight',
    Untracked: 'no-changes-in-flight',
    Error: 'no-changes-in-flight',
  },
  'changes-loaded-reseed': {
    Pending: 'no-changes-in-flight',
    Seeding: 'no-changes-in-flight',
    Tracking: 'Reseeding',
    Reseeding: 'no-changes-in-flight',
    Untracked: 'no-changes-in-flight',
    Error: 'no-changes-in-flight',
  },
  'failed-retryable': { Pending: 'Pending', Seeding: 'Seeding', Tracking: 'Tracking', Reseeding: 'Reseeding', Untracked: 'Untracked', Error: 'Error' },
  'failed-terminal': { Pending: 'Error', Seeding: 'Error', Tracking: 'Error', Reseeding: 'Error', Untracked: 'Error', Error: 'Error' },
  'failed-replication-wide': { Pending: 'Pending', Seeding: 'Seeding', Tracking: 'Tracking', Reseeding: 'Reseeding', Untracked: 'Untracked', Error: 'Error' },
  'failed-reseed': { Pending: 'Reseeding', Seeding: 'Reseeding', Tracking: 'Reseeding', Reseeding: 'Reseeding', Untracked: 'Reseeding', Error: 'Reseeding' },
  'reseed-asked': { Pending: 'Pending', Seeding: 'Reseeding', Tracking: 'Reseeding', Reseeding: 'Reseeding', Untracked: 'Reseeding', Error: 'Reseeding' },
  'retry-asked': { Pending: 'Pending', Seeding: 'Seeding', Tracking: 'Tracking', Reseeding: 'Reseeding', Untracked: 'Untracked', Error: resumed },
  'tracking-granted': { Pending: 'Pending', Seeding: 'Seeding', Tracking: 'Tracking', Reseeding: 'Reseeding', Untracked: 'Reseeding', Error: 'Error' },
};

const ALL_FACTS: TableFacts[] = [false, true].flatMap((tracked) =>
  [false, true].flatMap((hasWatermark) => [false, true].map((seeded) => ({ tracked, hasWatermark, seeded }))),
);

const CELLS: [TableEvent, TablePhase, TableFacts][] = TABLE_EVENTS.flatMap((event) =>
  TABLE_PHASES.flatMap((phase) => ALL_FACTS.map((facts): [TableEvent, TablePhase, TableFacts] => [event, phase, facts])),
);

function expectedOf(event: TableEvent, phase: TablePhase, facts: TableFacts): TablePhase | TableRefusal {
  const cell = EXPECTED[event]?.[phase];
  if (cell === undefined) throw new Error(`no expected outcome written for ${event} in ${phase}`);
  return typeof cell === 'function' ? cell(facts) : cell;
}

describe('the table phase machine', () => {
  it.each(CELLS)('%s in %s with %o', (event, phase, facts) => {
    const expected = expectedOf(event, phase, facts);
    const result = transition({ phase, ...facts }, event);
    if ((TABLE_REFUSALS as readonly string[]).includes(expected)) {
      expect(result).toEqual({ ok: false, refusal: expected });
    } else {
      expect(result).toEqual({ ok: true, phase: expected });
    }
  });

  it('has an expected row for every event and no row for an event that does not exist', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...TABLE_EVENTS].sort());
  });

  it('refuses work for a table in Error until it is retried, then resumes it from its facts', () => {
    const failed = { phase: 'Error', tracked: true, hasWatermark: true, seeded: true } as const;
    expect(transition(failed, 'seed-claimed')).toEqual({ ok: false, refusal: 'in-error' });
    expect(transition(failed, 'changes-claimed')).toEqual({ ok: false, refusal: 'in-error' });
    expect(transition(failed, 'retry-asked')).toEqual({ ok: true, phase: 'Tracking' });
    // A reseed forgets the watermark: the table resumes as Pending and the reseed is not lost.
    expect(transition({ ...failed, hasWatermark: false, seeded: false }, 'retry-asked')).toEqual({ ok: true, phase: 'Pending' });
  });
});
