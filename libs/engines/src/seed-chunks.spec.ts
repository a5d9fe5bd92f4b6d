import { MAX_SEED_CHUNKS, distinctBounds, seedChunkCount, seedSamplePercent } from './seed-chunks';

describe('chunked seeds: how many chunks and how large a sample', () => {
  it('cuts a table into chunks of about the chunk size, at most MAX_SEED_CHUNKS, and an empty or unknown size into one', () => {
    expect(seedChunkCount(10 * 1024, 4 * 1024)).toBe(3);
    expect(seedChunkCount(4 * 1024, 4 * 1024)).toBe(1);
    expect(seedChunkCount(0, 1024)).toBe(1);
    expect(seedChunkCount(Number.NaN, 1024)).toBe(1);
    expect(seedChunkCount(1e15, 1)).toBe(MAX_SEED_CHUNKS);
  });

  it('samples ten pages per chunk, never more than the whole table', () => {
    expect(seedSamplePercent(4, 1000)).toBe(4);
    expect(seedSamplePercent(4, 20)).toBe(100);
    expect(seedSamplePercent(4, 0)).toBe(100);
  });
});

describe('chunked seeds: bounds from the sample\'s bucket starts', () => {
  it('keeps the bucket starts in order, a repeated key once, and none from an empty sample (one chunk)', () => {
    expect(distinctBounds([['1', 'a'], ['1', 'b'], ['2', 'a']])).toEqual([['1', 'a'], ['1', 'b'], ['2', 'a']]);
    expect(distinctBounds([['1'], ['1'], ['2']])).toEqual([['1'], ['2']]);
    expect(distinctBounds([])).toEqual([]);
  });
});
