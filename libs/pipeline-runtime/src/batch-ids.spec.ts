import { seedBatchId, workMessageId } from './batch-ids';

describe('workMessageId', () => {
  const chunk = seedBatchId('r1', { schema: 'public', name: 'orders' }, 'seed-1', 0);

  it('drops a message delivered again within one attempt of a work (same id)', () => {
    expect(workMessageId('w1', chunk, 3)).toBe(workMessageId('w1', chunk, 3));
  });

  it('lets through the same batch read by a new attempt (a chunk published again at the new epoch: seen stalled at 9 of 10 chunks)', () => {
    expect(workMessageId('w1', chunk, 4)).not.toBe(workMessageId('w1', chunk, 3));
  });

  it('keeps each work apart (an idle table\'s empty batch has the same id cycle after cycle)', () => {
    expect(workMessageId('w2', chunk, 3)).not.toBe(workMessageId('w1', chunk, 3));
  });
});
