import { JsonLogger } from '@svc/logging';
import type { ScheduledValidationListing } from '@svc/registry-store';
import { ValidationScheduler, scheduledValidationMayStart } from './validation-scheduler.service';
import type { ValidationService } from './validation.service';

const MINUTE_MS = 60_000;
const NOON = new Date('2026-11-27T12:00:00Z');

function listing(overrides: Partial<ScheduledValidationListing> = {}, schedule: Partial<ScheduledValidationListing['schedule']> = {}): ScheduledValidationListing {
  return {
    replicationId: 'r-1',
    status: 'Running',
    dataReplication: true,
    schedule: { fromTime: '11:00:00 AM', toTime: '01:00:00 PM', repeatIntervalInMinutes: 60, ...schedule },
    ...overrides,
  };
}

describe('scheduledValidationMayStart', () => {
  it('lets a validation start while the replication runs and the daily window is open', () => {
    expect(scheduledValidationMayStart(listing(), NOON)).toBe(true);
    expect(scheduledValidationMayStart(listing({}, { fromTime: '01:00:00 PM', toTime: '03:00:00 PM' }), NOON)).toBe(false);
    // A window across midnight.
    expect(scheduledValidationMayStart(listing({}, { fromTime: '10:00:00 PM', toTime: '02:00:00 AM' }), new Date('2026-11-27T23:30:00Z'))).toBe(true);
    expect(scheduledValidationMayStart(listing({ status: 'Stopped' }), NOON)).toBe(false);
    expect(scheduledValidationMayStart(listing({ status: 'Failed' }), NOON)).toBe(false);
    expect(scheduledValidationMayStart(listing({ dataReplication: false }), NOON)).toBe(false);
    expect(scheduledValidationMayStart(listing({}, { repeatIntervalInMinutes: 0 }), NOON)).toBe(false);
  });
});

describe('ValidationScheduler', () => {
  function scheduler(listings: ScheduledValidationListing[], minuteMs = MINUTE_MS) {
    const started: Array<{ replicationId: string; notSince: Date }> = [];
    let revalidations = 0;
    const service = {
      startScheduled: async (replicationId: string, notSince: Date) => (started.push({ replicationId, notSince }), 'v-1'),
      startRevalidations: async () => ((revalidations += 1), []),
    };
    const subject = new ValidationScheduler(
      { withValidationSchedule: async () => listings },
      service as unknown as ValidationService,
      new JsonLogger('job-registry', 'error', () => undefined),
      { pipeline: { minuteMs } } as never,
    );
    return { subject, started, revalidations: () => revalidations };
  }

  it('asks for a validation of each replication whose window is open, none since its interval (in scheduler minutes)', async () => {
    const { subject, started, revalidations } = scheduler([listing(), listing({ replicationId: 'r-2' }, { repeatIntervalInMinutes: 5 }), listing({ replicationId: 'r-3', status: 'Stopped' })], 2000);
    await subject.tick(NOON);
    // And the validations that follow repairs by reseed, at every tick.
    expect(revalidations()).toBe(1);
    expect(started).toEqual([
      { replicationId: 'r-1', notSince: new Date(NOON.getTime() - 60 * 2000) },
      { replicationId: 'r-2', notSince: new Date(NOON.getTime() - 5 * 2000) },
    ]);
  });

  it('survives a failing store: the next tick tries again', async () => {
    let calls = 0;
    const subject = new ValidationScheduler(
      {
        withValidationSchedule: async () => {
          calls += 1;
          if (calls === 1) throw new Error('registry database restarting');
          return [];
        },
      },
      { startScheduled: async () => null, startRevalidations: async () => [] } as unknown as ValidationService,
      new JsonLogger('job-registry', 'error', () => undefined),
      { pipeline: { minuteMs: MINUTE_MS } } as never,
    );
    await subject.tick(NOON);
    await subject.tick(NOON);
    expect(calls).toBe(2);
  });
});
