import { secondsOfDay, withinDailyWindow } from './daily-window';

const at = (hh: number, mm = 0) => new Date(Date.UTC(2026, 10, 23, hh, mm, 0));

describe('daily windows', () => {
  it.each([
    ['12:00:00 AM', 0],
    ['12:20:00 AM', 20 * 60],
    ['01:00:00 AM', 3600],
    ['12:00:00 PM', 12 * 3600],
    ['11:59:59 PM', 86399],
    ['3:05:00 pm', 15 * 3600 + 300],
  ])('reads %s as second %i of the day', (time, seconds) => {
    expect(secondsOfDay(time)).toBe(seconds);
  });

  it('bounds a window inside one day', () => {
    expect(withinDailyWindow(at(1, 30), '01:00:00 AM', '05:00:00 AM')).toBe(true);
    expect(withinDailyWindow(at(5, 1), '01:00:00 AM', '05:00:00 AM')).toBe(false);
    expect(withinDailyWindow(at(0, 59), '01:00:00 AM', '05:00:00 AM')).toBe(false);
  });

  it('handles a window across midnight', () => {
    expect(withinDailyWindow(at(23), '10:00:00 PM', '02:00:00 AM')).toBe(true);
    expect(withinDailyWindow(at(1), '10:00:00 PM', '02:00:00 AM')).toBe(true);
    expect(withinDailyWindow(at(12), '10:00:00 PM', '02:00:00 AM')).toBe(false);
  });

  it('is always open without both ends', () => {
    expect(withinDailyWindow(at(12), undefined, '02:00:00 AM')).toBe(true);
  });
});
