import type { DescribedTable } from '../api/wire-types.js';
import { chunksText } from './tables-view.js';

const table = (overrides: Partial<DescribedTable>): DescribedTable => ({ name: '[public].[big]', phase: 'Seeding', rowsSeeded: 0, rowsEstimated: 0, ...overrides });

describe('the tables view: a chunked seed', () => {
  it('says the chunks loaded of all while a chunked seed is under way, and nothing without one', () => {
    expect(chunksText(table({ seedChunks: 1200, seedChunksLoaded: 37 }))).toBe('37 of 1,200 chunks loaded');
    expect(chunksText(table({}))).toBeNull();
  });
});
