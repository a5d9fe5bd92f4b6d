import { FAILURE_CLASS_OF_KIND } from '../errors';
import { ConnectionGate, NestedConnectionAcquireError, PoolBusyError, inConnectionScope } from './connection-gate';

const gateOf = (size: number, waitMs = 1_000) => new ConnectionGate({ owner: 'Source', size, waitMs, sizeSetting: 'SOURCE_MAX_CONNECTIONS (now 4) sets them.' });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ConnectionGate', () => {
  it('gives at most its size at once, in the order asked', async () => {
    const gate = gateOf(2);
    const order: number[] = [];
    const first = await gate.checkout();
    const second = await gate.checkout();
    const third = gate.checkout().then((place) => (order.push(3), place));
    const fourth = gate.checkout().then((place) => (order.push(4), place));
    await tick();
    expect({ inUse: gate.inUse, order }).toEqual({ inUse: 2, order: [] });
    first.release();
    first.release();
    await tick();
    expect({ inUse: gate.inUse, order }).toEqual({ inUse: 2, order: [3] });
    second.release();
    (await third).release();
    (await fourth).release();
    expect({ inUse: gate.inUse, order }).toEqual({ inUse: 0, order: [3, 4] });
  });

  it('lets eight works that each need two connections finish on a gate of four: each takes both at once', async () => {
    const gate = gateOf(4);
    let most = 0;
    const work = (index: number) =>
      inConnectionScope(() =>
        gate.withLease(2, async () => {
          const snapshot = await gate.checkout();
          most = Math.max(most, gate.inUse);
          await new Promise((resolve) => setTimeout(resolve, 5));
          const live = await gate.checkout();
          live.release();
          snapshot.release();
          return index;
        }),
      );
    expect(await Promise.all(Array.from({ length: 8 }, (_, index) => work(index)))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect({ most, inUse: gate.inUse }).toEqual({ most: 4, inUse: 0 });
  });

  it('refuses at once a work that holds a connection and asks for another of the same gate (it would wait on itself)', async () => {
    const gate = gateOf(4);
    const other = gateOf(4);
    await inConnectionScope(async () => {
      const held = await gate.checkout();
      await expect(gate.checkout()).rejects.toBeInstanceOf(NestedConnectionAcquireError);
      await expect(gate.checkout({ held: false })).rejects.toThrow(/Source: a work holding 1 connection\(s\) of this pool asked it for another/);
      await expect(gate.withLease(2, () => Promise.resolve())).rejects.toBeInstanceOf(NestedConnectionAcquireError);
      // Another pool is no nesting: a comparison reads its source and its warehouse at once.
      (await other.checkout()).release();
      held.release();
      (await gate.checkout()).release();
    });
    expect(gate.inUse).toBe(0);
  });

  it('lets one work run single statements side by side (they wait on nothing), and keeps works apart', async () => {
    const gate = gateOf(4);
    await inConnectionScope(async () => {
      const [one, two] = await Promise.all([gate.checkout({ held: false }), gate.checkout({ held: false })]);
      one.release();
      two.release();
    });
    const held = await inConnectionScope(() => gate.checkout());
    // Another work's scope does not see the first's connection.
    await inConnectionScope(async () => (await gate.checkout()).release());
    held.release();
  });

  it('draws a lease\'s connections one by one, and refuses one more than it took', async () => {
    const gate = gateOf(4);
    await gate.withLease(2, async () => {
      const [one, two] = [await gate.checkout(), await gate.checkout()];
      expect(gate.inUse).toBe(2);
      await expect(gate.checkout()).rejects.toThrow(NestedConnectionAcquireError);
      one.release();
      (await gate.checkout()).release();
      two.release();
    });
    expect(gate.inUse).toBe(0);
  });

  it('tells a work that waited too long that the pool is busy, naming its size and the settings (retried, in the service\'s words)', async () => {
    const gate = gateOf(1, 50);
    const held = await gate.checkout();
    const waited = gate.checkout();
    await expect(waited).rejects.toBeInstanceOf(PoolBusyError);
    await expect(waited).rejects.toThrow('Source: busy: all 1 of the service\'s connections to it stayed in use by other work for 1 s (this work needs 1 at once); it is retried. SOURCE_MAX_CONNECTIONS (now 4) sets them.');
    const error = (await waited.then(
      () => null,
      (failure: unknown) => failure,
    )) as PoolBusyError;
    expect({ kind: error.kind, serviceWorded: error.serviceWorded, class: FAILURE_CLASS_OF_KIND[error.kind] }).toEqual({ kind: 'transient', serviceWorded: true, class: 'server-busy' });
    held.release();
    expect(gate.inUse).toBe(0);
  });

  it('does not let smaller asks overtake a larger one first in line, and lets them go once it gave up', async () => {
    const gate = gateOf(2, 60);
    const held = await gate.checkout();
    const pair = gate.withLease(2, () => Promise.resolve('pair'));
    const single = gate.checkout();
    await tick();
    expect(gate.inUse).toBe(1);
    await expect(pair).rejects.toBeInstanceOf(PoolBusyError);
    (await single).release();
    held.release();
    expect(gate.inUse).toBe(0);
    await expect(gate.withLease(3, () => Promise.resolve())).rejects.toBeInstanceOf(PoolBusyError);
  });
});
