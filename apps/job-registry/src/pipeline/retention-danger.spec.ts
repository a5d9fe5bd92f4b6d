import { retentionInDanger } from './retention-danger';

const HOUR = 3600000;
const WATERMARK = new Date(Date.UTC(2026, 10, 23, 0, 0, 0));
const at = (hours: number) => new Date(WATERMARK.getTime() + hours * HOUR);
const tracked = { tracked: true, watermarkAt: WATERMARK, retentionAlertedAt: null };

describe('retentionInDanger', () => {
  it.each([
    ['12 Hours', 8.9, false],
    ['12 Hours', 9, true],
    ['2 Days', 35, false],
    ['2 Days', 36, true],
    ['8 Days', 143, false],
    ['8 Days', 144, true],
  ] as const)('retention %s, watermark %f h old → %s', (retention, hours, danger) => {
    expect(retentionInDanger(at(hours), tracked, retention)).toBe(danger);
  });

  it('raises once per stuck watermark, again when a newer watermark gets stuck', () => {
    const alerted = { ...tracked, retentionAlertedAt: at(9) };
    expect(retentionInDanger(at(11), alerted, '12 Hours')).toBe(false);
    const moved = { ...alerted, watermarkAt: at(10) };
    expect(retentionInDanger(at(19), moved, '12 Hours')).toBe(true);
  });

  it('ignores untracked tables and tables never seeded', () => {
    expect(retentionInDanger(at(100), { ...tracked, tracked: false }, '12 Hours')).toBe(false);
    expect(retentionInDanger(at(100), { ...tracked, watermarkAt: null }, '12 Hours')).toBe(false);
  });
});
