import type { TablePhase } from './replication-status';

/** The phase a table discovered in the source starts in. */
export const INITIAL_TABLE_PHASE: TablePhase = 'Pending';

/** What happens to a table that can move its phase; each is one guarded write of the registry. */
export const TABLE_EVENTS = [
  /** The scheduler claims a seed for the table (its first, a scheduled reseed, or a reseed asked before). */
  'seed-claimed',
  /** The scheduler claims a change cycle from the table's watermark. */
  'changes-claimed',
  /** A seed part of the work in flight is in the warehouse. */
  'seed-part-loaded',
  /** The final seed part is in the warehouse. */
  'seed-loaded',
  /** A change batch is in the warehouse. */
  'changes-loaded',
  /** A change batch is in the warehouse, and added columns with a value for existing rows ask a reseed. */
  'changes-loaded-reseed',
  /** The work failed and will be tried again after a backoff. */
  'failed-retryable',
  /** The work failed for good: the table stops until retried (StartReplication). */
  'failed-terminal',
  /** The work failed for a reason of the whole replication (it becomes Failed); the table keeps its phase. */
  'failed-replication-wide',
  /** The work failed in a way that asks a reseed (changes purged, versions rewound, a schema change). */
  'failed-reseed',
  /** An Alter asks every table to be seeded again (ScdType, warehouse target, SchemaReplication turned on). */
  'reseed-asked',
  /** StartReplication: tables in Error are tried again. */
  'retry-asked',
  /** Discovery finds a table seeded only is now to be tracked (moved into TablesToInclude, or given a primary key). */
  'tracking-granted',
] as const;
export type TableEvent = (typeof TABLE_EVENTS)[number];

/** Why an event cannot move a table in its phase; the registry then writes nothing. */
export const TABLE_REFUSALS = [
  /** A table in Error gets no work until it is retried. */
  'in-error',
  /** Change cycles read change tracking from a watermark: only a Tracking table has both. */
  'not-tracking',
  /** Seed progress of a table that has no seed in flight. */
  'no-seed-in-flight',
  /** A change batch of a table that has no change cycle in flight. */
  'no-changes-in-flight',
] as const;
export type TableRefusal = (typeof TABLE_REFUSALS)[number];

/** What of the stored row, beyond its phase, decides where some events lead. */
export interface TableFacts {
  /** Change tracking is (to be) installed: a keyed table in TablesToInclude. */
  tracked: boolean;
  /** The table has a change-tracking watermark (last version). */
  hasWatermark: boolean;
  /** The table has been seeded (and that seed was not forgotten by a reseed). */
  seeded: boolean;
}

export interface TableMachineState extends TableFacts {
  phase: TablePhase;
}

/** Facts a rule asks for; a fact not named is not looked at. */
export type FactCondition = Partial<TableFacts>;

/** The outcome of one phase × event cell. */
export type PhaseOutcome =
  | { readonly kind: 'to'; readonly phase: TablePhase }
  | { readonly kind: 'keep' }
  | { readonly kind: 'refuse'; readonly refusal: TableRefusal }
  /** The first rule whose condition holds gives the phase, else `otherwise`. */
  | { readonly kind: 'choose'; readonly rules: readonly { readonly when: FactCondition; readonly phase: TablePhase }[]; readonly otherwise: TablePhase };

const to = (phase: TablePhase): PhaseOutcome => ({ kind: 'to', phase });
const keep: PhaseOutcome = { kind: 'keep' };
const refuse = (refusal: TableRefusal): PhaseOutcome => ({ kind: 'refuse', refusal });

/** A finished seed: a tracked table tracks changes from the snapshot, an untracked one waits for its next reseed. */
const SEED_DONE: PhaseOutcome = { kind: 'choose', rules: [{ when: { tracked: true }, phase: 'Tracking' }], otherwise: 'Untracked' };
/** Back from Error to what the table was, as far as its facts tell; with nothing to go on, a new seed. */
const RESUMED: PhaseOutcome = {
  kind: 'choose',
  rules: [
    { when: { tracked: true, hasWatermark: true }, phase: 'Tracking' },
    { when: { tracked: false, seeded: true }, phase: 'Untracked' },
  ],
  otherwise: 'Pending',
};

/**
 * Every phase × event and its outcome. The type makes a row or cell that is not written a compile error;
 * the registry generates its SQL from this table, so the guarded UPDATE and `transition` cannot disagree.
 */
export const TABLE_PHASE_TABLE: { readonly [E in TableEvent]: { readonly [P in TablePhase]: PhaseOutcome } } = {
  'seed-claimed': { Pending: to('Seeding'), Seeding: to('Seeding'), Tracking: to('Reseeding'), Reseeding: to('Reseeding'), Untracked: to('Reseeding'), Error: refuse('in-error') },
  'changes-claimed': {
    Pending: refuse('not-tracking'),
    Seeding: refuse('not-tracking'),
    Tracking: keep,
    Reseeding: refuse('not-tracking'),
    Untracked: refuse('not-tracking'),
    Error: refuse('in-error'),
  },
  'seed-part-loaded': {
    Pending: refuse('no-seed-in-flight'),
    Seeding: keep,
    Tracking: refuse('no-seed-in-flight'),
    Reseeding: keep,
    Untracked: refuse('no-seed-in-flight'),
    Error: refuse('no-seed-in-flight'),
  },
  'seed-loaded': {
    Pending: refuse('no-seed-in-flight'),
    Seeding: SEED_DONE,
    Tracking: refuse('no-seed-in-flight'),
    Reseeding: SEED_DONE,
    Untracked: refuse('no-seed-in-flight'),
    Error: refuse('no-seed-in-flight'),
  },
  'changes-loaded': {
    Pending: refuse('no-changes-in-flight'),
    Seeding: refuse('no-changes-in-flight'),
    Tracking: keep,
    Reseeding: refuse('no-changes-in-flight'),
    Untracked: refuse('no-changes-in-flight'),
    Error: refuse('no-changes-in-flight'),
  },
  'changes-loaded-reseed': {
    Pending: refuse('no-changes-in-flight'),
    Seeding: refuse('no-changes-in-flight'),
    Tracking: to('Reseeding'),
    Reseeding: refuse('no-changes-in-flight'),
    Untracked: refuse('no-changes-in-flight'),
    Error: refuse('no-changes-in-flight'),
  },
  // A failure always releases the work in flight (the in-flight work id guards it), whatever the phase.
  'failed-retryable': { Pending: keep, Seeding: keep, Tracking: keep, Reseeding: keep, Untracked: keep, Error: keep },
  'failed-terminal': { Pending: to('Error'), Seeding: to('Error'), Tracking: to('Error'), Reseeding: to('Error'), Untracked: to('Error'), Error: to('Error') },
  'failed-replication-wide': { Pending: keep, Seeding: keep, Tracking: keep, Reseeding: keep, Untracked: keep, Error: keep },
  'failed-reseed': {
    Pending: to('Reseeding'),
    Seeding: to('Reseeding'),
    Tracking: to('Reseeding'),
    Reseeding: to('Reseeding'),
    Untracked: to('Reseeding'),
    Error: to('Reseeding'),
  },
  // A table never seeded stays Pending: its first seed is the reseed.
  'reseed-asked': { Pending: keep, Seeding: to('Reseeding'), Tracking: to('Reseeding'), Reseeding: to('Reseeding'), Untracked: to('Reseeding'), Error: to('Reseeding') },
  'retry-asked': { Pending: keep, Seeding: keep, Tracking: keep, Reseeding: keep, Untracked: keep, Error: RESUMED },
  // An Untracked table gets no seed but its scheduled ones, and a tracked table has no schedule: it is seeded
  // again now, installing change tracking. Any other phase seeds (with tracking) or resumes as Pending anyway.
  'tracking-granted': { Pending: keep, Seeding: keep, Tracking: keep, Reseeding: keep, Untracked: to('Reseeding'), Error: keep },
};

export type TransitionResult = { ok: true; phase: TablePhase } | { ok: false; refusal: TableRefusal };

/** Whether the facts meet every fact the condition names. */
export function factsMeet(facts: TableFacts, condition: FactCondition): boolean {
  return (Object.keys(condition) as (keyof TableFacts)[]).every((fact) => condition[fact] === facts[fact]);
}

/** Where `event` takes a table in `state`, or why it cannot. */
export function transition(state: TableMachineState, event: TableEvent): TransitionResult {
  const outcome = TABLE_PHASE_TABLE[event][state.phase];
  switch (outcome.kind) {
    case 'to':
      return { ok: true, phase: outcome.phase };
    case 'keep':
      return { ok: true, phase: state.phase };
    case 'refuse':
      return { ok: false, refusal: outcome.refusal };
    case 'choose':
      return { ok: true, phase: outcome.rules.find((rule) => factsMeet(state, rule.when))?.phase ?? outcome.otherwise };
    default: {
      const unreachable: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(unreachable)}`);
    }
  }
}
