import { CachedSnapshot } from './cached-snapshot';

describe('CachedSnapshot', () => {
  let clock = 0;
  let fetches = 0;
  const snapshot = () =>
    new CachedSnapshot(
      () => {
        fetches += 1;
        return Promise.resolve(`snapshot ${fetches}`);
      },
      5000,
      () => clock,
    );

  beforeEach(() => {
    clock = 1_000_000;
    fetches = 0;
  });

  it('asks once per interval however often it is read', async () => {
    const cache = snapshot();
    expect(await cache.get()).toBe('snapshot 1');
    clock += 4999;
    for (let scrape = 0; scrape < 50; scrape += 1) expect(await cache.get()).toBe('snapshot 1');
    expect(fetches).toBe(1);
    clock += 1;
    expect(await cache.get()).toBe('snapshot 2');
  });

  it('shares one request among reads that arrive while it is pending', async () => {
    const cache = snapshot();
    expect(await Promise.all([cache.get(), cache.get(), cache.get()])).toEqual(['snapshot 1', 'snapshot 1', 'snapshot 1']);
    expect(fetches).toBe(1);
  });
});
