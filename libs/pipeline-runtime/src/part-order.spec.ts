import { RetryableWorkError } from '@svc/messaging';
import { waitForPreviousPart } from './part-order';

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
