import type { BatchDescriptor } from '@svc/contracts';
import type { ApplyOutcome } from '@svc/engines';
import { SAMPLE_PEOPLE_TABLE, sampleChangeBatch } from '@svc/testing';
import { seedBatchId } from './batch-ids';
import { runBatchStep, type BatchStepTarget } from './batch-step';
import { CHANGE_BATCH_LAST_SLOT_WAIT_MS, SeedPartOrder } from './part-order';
import { RetryableWorkError } from '@svc/messaging';

const REPLICATION_ID = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

const seedPart = (part: number): BatchDescriptor => ({
  batchId: seedBatchId(REPLICATION_ID, SAMPLE_PEOPLE_TABLE.table, 'seed-1', part),
  replicationId: REPLICATION_ID,
  epoch: 1,
  definition: SAMPLE_PEOPLE_TABLE,
  body: { kind: 'seed', seedId: 'seed-1', part, final: false, startVersion: '7' },
});

/** A target answering from fixed facts, recording what the step asked of it. */
function target(facts: { done?: string[]; stale?: boolean | (() => boolean); exists?: boolean; created?: boolean; keptAs?: string; outcome?: ApplyOutcome }) {
  const calls: string[] = [];
  const fake: BatchStepTarget = {
    hasDone: async (batchId) => (calls.push(`hasDone ${batchId}`), (facts.done ?? []).includes(batchId)),
    isStale: async () => (calls.push('isStale'), typeof facts.stale === 'function' ? facts.stale() : (facts.stale ?? false)),
    tableExists: async () => (calls.push('tableExists'), facts.exists ?? true),
    ensureTable: async () => (calls.push('ensureTable'), { created: facts.created ?? false, addedColumns: ['added'], ...(facts.keptAs !== undefined && { keptAs: facts.keptAs }) }),
    apply: async () => (calls.push('apply'), facts.outcome ?? { applied: true, rowCount: 3 }),
  };
  return { fake, calls };
}

function outcomes() {
  const ended: string[] = [];
  return {
    ended,
    handlers: {
      stale: () => void ended.push('stale'),
      tableLost: async () => void ended.push('tableLost'),
      done: async (outcome: ApplyOutcome, addedColumns: string[]) => void ended.push(`done ${outcome.rowCount} ${addedColumns.join(',')}`),
    },
  };
}

describe('runBatchStep', () => {
  const partOrder = new SeedPartOrder(4, { pollMs: 5, timeoutMs: 2000 });

  it('applies a change batch and passes it on with the columns the table gained', async () => {
    const { fake, calls } = target({});
    const { ended, handlers } = outcomes();

    await runBatchStep(sampleChangeBatch(REPLICATION_ID, { from: 1, to: 2 }, 1), partOrder, fake, handlers);

    expect(calls).toEqual(['isStale', 'ensureTable', 'apply']);
    expect(ended).toEqual(['done 3 added']);
  });

  it('passes on a batch applied before (a redelivery), as applied', async () => {
    const { fake } = target({ outcome: { applied: false, rowCount: 0 } });
    const { ended, handlers } = outcomes();

    await runBatchStep(sampleChangeBatch(REPLICATION_ID, { from: 1, to: 2 }, 1), partOrder, fake, handlers);

    expect(ended).toEqual(['done 0 added']);
  });

  it('drops a stale batch before touching the table', async () => {
    const { fake, calls } = target({ stale: true });
    const { ended, handlers } = outcomes();

    await runBatchStep(sampleChangeBatch(REPLICATION_ID, { from: 1, to: 2 }, 1), partOrder, fake, handlers);

    expect(calls).toEqual(['isStale']);
    expect(ended).toEqual(['stale']);
  });

  it('drops a batch that turned out stale while it was applied (newer work got the table first)', async () => {
    const { fake } = target({ outcome: { applied: false, rowCount: 0, stale: true } });
    const { ended, handlers } = outcomes();

    await runBatchStep(sampleChangeBatch(REPLICATION_ID, { from: 1, to: 2 }, 1), partOrder, fake, handlers);

    expect(ended).toEqual(['stale']);
  });

  it('reseeds when the table had to be created for a batch that adds to it', async () => {
    const { fake, calls } = target({ created: true });
    const { ended, handlers } = outcomes();

    await runBatchStep(sampleChangeBatch(REPLICATION_ID, { from: 1, to: 2 }, 1), partOrder, fake, handlers);

    expect(calls).not.toContain('apply');
    expect(ended).toEqual(['tableLost']);
  });

  it('creates the table for the first seed part, and for any batch when the old table was kept aside (ScdType change)', async () => {
    const first = outcomes();
    await runBatchStep(seedPart(0), partOrder, target({ created: true }).fake, first.handlers);
    const keptAside = outcomes();
    await runBatchStep(sampleChangeBatch(REPLICATION_ID, { from: 1, to: 2 }, 1), partOrder, target({ created: true, keptAs: 'people_type1' }).fake, keptAside.handlers);

    expect(first.ended).toEqual(['done 3 added']);
    expect(keptAside.ended).toEqual(['done 3 added']);
  });

  it('applies a seed part only once the part before it is in', async () => {
    const done: string[] = [];
    const { fake, calls } = target({ done });
    const { ended, handlers } = outcomes();
    setTimeout(() => done.push(seedPart(1).batchId), 50);

    await runBatchStep(seedPart(2), partOrder, fake, handlers);

    expect(calls.filter((call) => call.startsWith('hasDone')).length).toBeGreaterThan(1);
    expect(calls.slice(-3)).toEqual(['isStale', 'ensureTable', 'apply']);
    expect(ended).toEqual(['done 3 added']);
  });

  it('stops waiting for the previous part when the batch became stale meanwhile, and drops it', async () => {
    let stale = false;
    const { fake, calls } = target({ stale: () => stale });
    const { ended, handlers } = outcomes();
    setTimeout(() => (stale = true), 50);

    await runBatchStep(seedPart(2), partOrder, fake, handlers);

    expect(calls).not.toContain('apply');
    expect(ended).toEqual(['stale']);
  });

  it('applies a change batch that follows another of its work only once that one is in, and a work\'s first at once', async () => {
    const first = sampleChangeBatch(REPLICATION_ID, { from: 10, to: 20 }, 1);
    const second = sampleChangeBatch(REPLICATION_ID, { from: 20, to: 30 }, 1);
    const following: BatchDescriptor = { ...second, body: { kind: 'changes', fromVersion: '20', toVersion: '30', after: '10' } };
    const done: string[] = [];
    const waiting = target({ done });
    const { ended, handlers } = outcomes();
    setTimeout(() => done.push(first.batchId), 50);

    await runBatchStep(following, partOrder, waiting.fake, handlers);

    expect(waiting.calls.filter((call) => call === `hasDone ${first.batchId}`).length).toBeGreaterThan(1);
    expect(waiting.calls.slice(-3)).toEqual(['isStale', 'ensureTable', 'apply']);
    expect(ended).toEqual(['done 3 added']);

    const alone = target({});
    await runBatchStep(second, partOrder, alone.fake, outcomes().handlers);
    expect(alone.calls.some((call) => call.startsWith('hasDone'))).toBe(false);
  });

  it('gives the last free slot up within seconds for a change batch of a chain, where a seed part keeps waiting', async () => {
    const shutdown = new AbortController();
    const oneSlot = new SeedPartOrder(1, { pollMs: 20, lastSlotTimeoutMs: 60000, shutdown: shutdown.signal });
    const following: BatchDescriptor = { ...sampleChangeBatch(REPLICATION_ID, { from: 20, to: 30 }, 1), body: { kind: 'changes', fromVersion: '20', toVersion: '30', after: '10' } };
    const started = Date.now();
    await expect(runBatchStep(following, oneSlot, target({}).fake, outcomes().handlers)).rejects.toBeInstanceOf(RetryableWorkError);
    expect(Date.now() - started).toBeLessThan(CHANGE_BATCH_LAST_SLOT_WAIT_MS + 1000);

    const seedWait = runBatchStep(seedPart(3), oneSlot, target({}).fake, outcomes().handlers);
    const stillWaiting = await Promise.race([seedWait.then(() => false, () => false), new Promise<boolean>((done) => setTimeout(() => done(true), CHANGE_BATCH_LAST_SLOT_WAIT_MS + 500))]);
    expect(stillWaiting).toBe(true);
    shutdown.abort();
    await expect(seedWait).rejects.toThrow();
  }, 15000);
});
