import { cpuSnapshot, cpuSpent, parseProcStatTicks } from './cpu-usage';

describe('parseProcStatTicks', () => {
  it('adds utime and stime, whatever the command name holds', () => {
    const stat = '4242 (node (worker) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 750 250 0 0 20 0 11 0 12345 1101612544 16670 18446744073709551615';
    expect(parseProcStatTicks(stat)).toBe(1000);
  });

  it('is null for text that is not a stat line', () => {
    expect(parseProcStatTicks('garbage')).toBeNull();
  });
});

describe('cpuSpent', () => {
  it('subtracts snapshots and leaves what no listed process used as the rest', () => {
    const spent = cpuSpent({ processes: { loader: 1, stager: 2 }, self: 0.5, machine: 10, at: 100 }, { processes: { loader: 4, stager: 3 }, self: 1.5, machine: 20, at: 106 });
    expect(spent).toEqual({ processes: { loader: 3, stager: 1 }, self: 1, rest: 5, machine: 10, wallSeconds: 6 });
  });

  it('measures real processes on Linux', () => {
    const before = cpuSnapshot({ me: process.pid });
    let x = 0;
    for (let i = 0; i < 3e7; i++) x += i % 7;
    const spent = cpuSpent(before, cpuSnapshot({ me: process.pid }));
    expect(x).toBeGreaterThan(0);
    if (process.platform === 'linux') expect(spent.processes['me']).toBeGreaterThan(0);
    expect(spent.self).toBeGreaterThan(0);
  });
});
