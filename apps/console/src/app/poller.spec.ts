import { Poller } from './poller.js';

describe('Poller', () => {
  it('asks an interval given as a function after each run, so that it can follow live state faster', async () => {
    const delays: number[] = [];
    const pending: (() => void)[] = [];
    const timers = {
      setTimeout: ((callback: () => void, delay: number) => {
        delays.push(delay);
        pending.push(callback);
        return pending.length;
      }) as unknown as typeof setTimeout,
      clearTimeout: (() => undefined) as typeof clearTimeout,
    };
    let live = true;
    let runs = 0;
    const settle = () => new Promise((done) => setImmediate(done));
    const poller = new Poller(
      async () => {
        runs += 1;
      },
      () => (live ? 2000 : 15000),
      timers,
    ).start();
    await settle();
    live = false;
    pending.shift()?.();
    await settle();
    poller.stop();
    pending.shift()?.();
    await settle();
    expect({ runs, delays }).toEqual({ runs: 3, delays: [2000, 15000] });
  });
});
