import { RetryableWorkError } from '@svc/messaging';
import { SeedPartOrder, tableLoss, waitForPreviousPart } from './part-order';

describe('waitForPreviousPart', () => {
  it('returns once the previous part is applied, without failing meanwhile', async () => {
    let checks = 0;
    await waitForPreviousPart(async () => ++checks >= 3, 'part-0', { pollMs: 1 });
    expect(checks).toBe(3);
  });

  it('asks for a retry when the previous part does not come in time', async () => {
    await expect(waitForPreviousPart(async () => false, 'part-0', { timeoutMs: 20, pollMs: 5 })).rejects.toBeInstanceOf(RetryableWorkError);
  });
});

describe('SeedPartOrder', () => {
  it('lets parts wait in all but the last free slot, where a part is soon retried so that its predecessor can be taken', async () => {
    const order = new SeedPartOrder(3, { pollMs: 1, timeoutMs: 60000, lastSlotTimeoutMs: 30 });
    let firstApplied = false;
    const waiters = [order.waitForPrevious(async () => firstApplied, 'part-1'), order.waitForPrevious(async () => firstApplied, 'part-1')];
    const startedAt = Date.now();
    await expect(order.waitForPrevious(async () => false, 'part-2')).rejects.toBeInstanceOf(RetryableWorkError);
    expect(Date.now() - startedAt).toBeLessThan(1000);
    // A part whose predecessor is applied takes no waiting place.
    await expect(order.waitForPrevious(async () => true, 'part-0')).resolves.toBeUndefined();
    firstApplied = true;
    await Promise.all(waiters);
    // Places are given back once the waits end: a wait in a slot that is not the last one outlasts lastSlotTimeoutMs.
    let secondApplied = false;
    const next = order.waitForPrevious(async () => secondApplied, 'part-3');
    await new Promise((done) => setTimeout(done, 60));
    secondApplied = true;
    await expect(next).resolves.toBeUndefined();
  });

  it('waits outside the slot, the full time, when the worker lends it, and takes it back once the predecessor is in', async () => {
    const order = new SeedPartOrder(1, { pollMs: 1, timeoutMs: 60000, lastSlotTimeoutMs: 10 });
    const loans: string[] = [];
    let applied = false;
    const lendSlot = () => (loans.push('lent'), async () => void loans.push('taken back'));
    const waiting = order.waitForPrevious(async () => applied, 'part-1', { lendSlot });
    // In the only slot a part gives up within lastSlotTimeoutMs; lent, it outlasts it many times.
    await new Promise((done) => setTimeout(done, 100));
    expect(loans).toEqual(['lent']);
    applied = true;
    await expect(waiting).resolves.toBeUndefined();
    expect(loans).toEqual(['lent', 'taken back']);
    // A worker that lends no more slots: the part waits in its slot, as before.
    await expect(order.waitForPrevious(async () => false, 'part-2', { lendSlot: () => undefined })).rejects.toBeInstanceOf(RetryableWorkError);
  });

  it('checks at once when this process applies the predecessor, and asks less often the longer it waits', async () => {
    const order = new SeedPartOrder(4, { pollMs: 50, maxPollMs: 400, timeoutMs: 60000 });
    const checks: number[] = [];
    let applied = false;
    const startedAt = Date.now();
    const waiting = order.waitForPrevious(async () => (checks.push(Date.now() - startedAt), applied), 'part-1');
    await new Promise((done) => setTimeout(done, 1000));
    // 50, 100, 200, 400, 400 ms apart: about 6 checks in a second, not 20.
    expect(checks.length).toBeGreaterThanOrEqual(4);
    expect(checks.length).toBeLessThanOrEqual(7);
    applied = true;
    const wokenAt = Date.now();
    order.applied('part-1');
    await waiting;
    expect(Date.now() - wokenAt).toBeLessThan(100);
  });

  it('retries a part soon in the only slot of a worker', async () => {
    await expect(new SeedPartOrder(1, { pollMs: 1, lastSlotTimeoutMs: 20 }).waitForPrevious(async () => false, 'part-0')).rejects.toBeInstanceOf(RetryableWorkError);
  });
});

describe('tableLoss', () => {
  it('counts a table lost only once it has been missing at every check for the grace period', async () => {
    let exists = false;
    const lost = tableLoss(async () => exists, 40);
    expect(await lost()).toBe(false);
    await new Promise((done) => setTimeout(done, 50));
    // Seen again in between (part 0 created it): the grace starts over when it goes missing.
    exists = true;
    expect(await lost()).toBe(false);
    exists = false;
    expect(await lost()).toBe(false);
    await new Promise((done) => setTimeout(done, 50));
    expect(await lost()).toBe(true);
  });
});
