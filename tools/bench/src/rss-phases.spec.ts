import { RssPhases, describePhasePeaks, parseVmRss } from './rss-phases';

describe('parseVmRss', () => {
  it('reads the resident set size now, not the peak', () => {
    const status = ['Name:\tnode', 'VmHWM:\t  123456 kB', 'VmRSS:\t  100000 kB'].join('\n');
    expect(parseVmRss(status)).toBe(100000 * 1024);
  });

  it('is null when the field is missing', () => {
    expect(parseVmRss('Name:\tkthreadd\n')).toBeNull();
  });
});

describe('RssPhases', () => {
  it('keeps each process\'s highest sample with the phase it was taken in', () => {
    const rss = new Map<number, number | null>([
      [1, 100],
      [2, 50],
    ]);
    const phases = new RssPhases({ extractor: 1, stager: 2, gone: undefined }, (pid) => rss.get(pid) ?? null);
    phases.phase('seed');
    rss.set(1, 300);
    rss.set(2, 80);
    phases.sample();
    phases.phase('catch-up');
    rss.set(1, 200);
    rss.set(2, 90);
    const peaks = phases.stop();

    expect(peaks).toEqual([
      { service: 'extractor', bytes: 300, phase: 'seed' },
      { service: 'stager', bytes: 90, phase: 'catch-up' },
    ]);
  });

  it('skips a process that is gone', () => {
    const phases = new RssPhases({ loader: 7 }, () => null);
    expect(phases.stop()).toEqual([]);
  });

  it('words the peaks in MiB with their phase', () => {
    expect(describePhasePeaks([{ service: 'extractor', bytes: 212 * 2 ** 20, phase: 'the big transaction, pipeline' }])).toBe('extractor 212 MiB (the big transaction, pipeline)');
  });
});
