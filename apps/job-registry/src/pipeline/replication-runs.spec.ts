import { ReplicationRuns, configuredLimit, type AdmissionInput } from './replication-runs';

const MINUTE = 60000;
const START = new Date(Date.UTC(2026, 10, 23, 8, 0, 0));

/**
 * A fake clock world: each replication has one table whose change cycle takes `cycleMinutes`; a replication
 * with a run starts that cycle when admitted and not yet served in the run.
 */
class World {
  now = START;
  readonly runs = new ReplicationRuns(MINUTE);
  private readonly busyUntil = new Map<string, number>();
  private readonly servedAt = new Map<string, number>();
  /** Minute marks at which each replication started a cycle. */
  readonly started = new Map<string, number[]>();
  service: AdmissionInput['service'] = { serializeReplications: false, parallelDatabaseReplicationsLimit: 0 };
  eligible: string[];

  constructor(
    private readonly cycleMinutes: Record<string, number>,
    private readonly timeouts: { serialized: number; auto: number } = { serialized: 30, auto: 30 },
  ) {
    this.eligible = Object.keys(cycleMinutes);
  }

  /** Advances the clock one minute at a time, admitting and starting work like the scheduler does. */
  runFor(minutes: number): void {
    for (let i = 0; i < minutes; i += 1) {
      this.tick();
      this.now = new Date(this.now.getTime() + MINUTE);
    }
  }

  tick(): Map<string, Date | null> {
    const t = this.now.getTime();
    const busy = (id: string) => (this.busyUntil.get(id) ?? 0) > t;
    const { admitted } = this.runs.admit(this.now, {
      candidates: this.eligible.map((id) => ({
        replicationId: id,
        serializedTimeoutMinutes: this.timeouts.serialized,
        autoSerializedTimeoutMinutes: this.timeouts.auto,
        busy: busy(id),
      })),
      hasDueWork: (id, since) => !busy(id) && (this.servedAt.get(id) ?? Number.NEGATIVE_INFINITY) < since.getTime(),
      service: this.service,
    });
    for (const [id, runStart] of admitted) {
      const served = (this.servedAt.get(id) ?? Number.NEGATIVE_INFINITY) >= (runStart?.getTime() ?? Number.POSITIVE_INFINITY);
      if (busy(id) || served) continue;
      const done = t + (this.cycleMinutes[id] ?? 1) * MINUTE;
      this.busyUntil.set(id, done);
      // Completed just before the tick that sees it done (a real completion precedes the next scheduling pass).
      this.servedAt.set(id, done - 1);
      this.started.set(id, [...(this.started.get(id) ?? []), (t - START.getTime()) / MINUTE]);
    }
    return admitted;
  }

  startsOf(id: string): number[] {
    return this.started.get(id) ?? [];
  }
}

describe('configuredLimit', () => {
  it.each([
    [{ serializeReplications: true, parallelDatabaseReplicationsLimit: 0 }, 1],
    [{ serializeReplications: true, parallelDatabaseReplicationsLimit: 5 }, 1],
    [{ serializeReplications: false, parallelDatabaseReplicationsLimit: 3 }, 3],
    [{ serializeReplications: false, parallelDatabaseReplicationsLimit: 0 }, null],
  ])('%o → %p', (service, limit) => {
    expect(configuredLimit(service)).toBe(limit);
  });
});

describe('ReplicationRuns', () => {
  it('runs every replication at once without a limit', () => {
    const world = new World({ a: 10, b: 10, c: 10 });
    world.runFor(1);
    expect([world.startsOf('a'), world.startsOf('b'), world.startsOf('c')]).toEqual([[0], [0], [0]]);
  });

  it('SerializeReplications: one at a time, in turn', () => {
    const world = new World({ a: 10, b: 10, c: 10 });
    world.service = { serializeReplications: true, parallelDatabaseReplicationsLimit: 0 };
    world.runFor(61);
    // a runs 0–10, b 10–20 (its turn starts at the tick that sees a finished), c after b, then a again.
    expect(world.startsOf('a')).toEqual([0, 30, 60]);
    expect(world.startsOf('b')).toEqual([10, 40]);
    expect(world.startsOf('c')).toEqual([20, 50]);
  });

  it('ParallelDatabaseReplicationsLimit=1 serializes the same way', () => {
    const world = new World({ a: 5, b: 5 });
    world.service = { serializeReplications: false, parallelDatabaseReplicationsLimit: 1 };
    world.runFor(21);
    expect(world.startsOf('a')).toEqual([0, 10, 20]);
    expect(world.startsOf('b')).toEqual([5, 15]);
  });

  it('launches the next queued replication when the current exceeds SerializedCtProcessTimeoutInMinutes', () => {
    const world = new World({ a: 45, b: 10 }, { serialized: 30, auto: 5 });
    world.service = { serializeReplications: true, parallelDatabaseReplicationsLimit: 0 };
    world.runFor(32);
    // a is still in its first run at minute 31 (> 30): b starts beside it.
    expect(world.startsOf('a')).toEqual([0]);
    expect(world.startsOf('b')).toEqual([31]);
  });

  it('ParallelDatabaseReplicationsLimit=2 runs two at a time', () => {
    const world = new World({ a: 10, b: 10, c: 10 });
    world.service = { serializeReplications: false, parallelDatabaseReplicationsLimit: 2 };
    world.runFor(11);
    expect([world.startsOf('a'), world.startsOf('b'), world.startsOf('c')]).toEqual([[0, 10], [0], [10]]);
  });

  describe('after a restart (auto serialization)', () => {
    it('serializes although no limit is configured, with AutoSerializedCtProcessTimeoutInMinutes, then returns to parallel', () => {
      const world = new World({ a: 50, b: 5, c: 5 }, { serialized: 100, auto: 20 });
      world.runs.beginAutoSerialization(['a', 'b', 'c']);
      world.runFor(45);
      // a holds the only slot until it exceeds 20 minutes; then b and c take turns beside it, one at a time.
      expect(world.startsOf('a')).toEqual([0]);
      expect(world.startsOf('b')).toEqual([21, 31, 41]);
      expect(world.startsOf('c')).toEqual([26, 36]);
      expect(world.runs.modeFor(world.service)).toBe('auto');
      world.runFor(10);
      // a's first run ended at 50: everyone has completed a run, so all run in parallel again.
      expect(world.runs.modeFor(world.service)).toBe('parallel');
      expect(world.startsOf('a')).toEqual([0, 50]);
      expect(world.startsOf('b')).toEqual([21, 31, 41, 50]);
      expect(world.startsOf('c')).toEqual([26, 36, 46, 51]);
    });

    it('returns to the configured limit afterwards', () => {
      const world = new World({ a: 5, b: 5, c: 5 });
      world.service = { serializeReplications: false, parallelDatabaseReplicationsLimit: 2 };
      world.runs.beginAutoSerialization(['a', 'b', 'c']);
      world.runFor(15);
      expect([world.startsOf('a'), world.startsOf('b'), world.startsOf('c')]).toEqual([[0], [5], [10]]);
      world.runFor(1);
      expect(world.runs.modeFor(world.service)).toBe('limited');
      world.runFor(5);
      // Limited to two again: a and b start together at 15; at 20 c (waiting longest) and a.
      expect(world.startsOf('a')).toEqual([0, 15, 20]);
      expect(world.startsOf('b')).toEqual([5, 15]);
      expect(world.startsOf('c')).toEqual([10, 20]);
    });

    it('counts work still in flight from before the restart against the limit', () => {
      const world = new World({ a: 10, b: 10 });
      world.runFor(1); // parallel: both start at 0
      world.runs.beginAutoSerialization(['a', 'b']);
      world.runFor(25);
      // Both were busy until 10 (they kept running); afterwards one at a time.
      expect(world.startsOf('a')).toEqual([0, 10]);
      expect(world.startsOf('b')).toEqual([0, 20]);
    });
  });

  it('frees the slot of a replication that stops (DataReplication=false or deleted)', () => {
    const world = new World({ a: 100, b: 10 }, { serialized: 1000, auto: 1000 });
    world.service = { serializeReplications: true, parallelDatabaseReplicationsLimit: 0 };
    world.runFor(5);
    expect(world.startsOf('b')).toEqual([]);
    world.eligible = ['b'];
    world.runFor(1);
    expect(world.startsOf('b')).toEqual([5]);
  });
});
