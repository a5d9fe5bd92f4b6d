import { RETENTION_PERIODS } from '@svc/contracts';
import { retentionHours } from './retention';

describe('retentionHours', () => {
  it('maps every retention period of the seed', () => {
    expect(RETENTION_PERIODS.map(retentionHours)).toEqual([12, 24, 48, 72, 96, 120, 144, 168, 192]);
  });
});
