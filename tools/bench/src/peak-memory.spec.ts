import { parseVmHwm, peakRssBytes } from './peak-memory';

describe('parseVmHwm', () => {
  it('reads the peak resident set size in bytes', () => {
    const status = ['Name:\tnode', 'VmPeak:\t 1101612 kB', 'VmHWM:\t  123456 kB', 'VmRSS:\t  100000 kB'].join('\n');
    expect(parseVmHwm(status)).toBe(123456 * 1024);
  });

  it('is null when the field is missing (not Linux, kernel thread)', () => {
    expect(parseVmHwm('Name:\tkthreadd\nState:\tS (sleeping)\n')).toBeNull();
  });
});

describe('peakRssBytes', () => {
  it('reads this process on Linux, and null for no process', () => {
    const own = peakRssBytes(process.pid);
    if (process.platform === 'linux') expect(own).toBeGreaterThan(1024 * 1024);
    expect(peakRssBytes(undefined)).toBeNull();
  });
});
