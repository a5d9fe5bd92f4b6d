import { workIsAlive } from './work-liveness';

const T0 = new Date(Date.UTC(2030, 0, 1));
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const STALLED_MS = 60000;

describe('workIsAlive', () => {
  it.each([
    ['nothing in flight', { inFlightWorkId: null, inFlightSince: null, lastProgressAt: null }, 0, false],
    ['claimed just now', { inFlightWorkId: 'w', inFlightSince: at(0), lastProgressAt: at(0) }, 60, true],
    ['claimed, no sign of life since', { inFlightWorkId: 'w', inFlightSince: at(0), lastProgressAt: at(0) }, 61, false],
    ['a heartbeat within the window', { inFlightWorkId: 'w', inFlightSince: at(0), lastProgressAt: at(100) }, 150, true],
    ['last progress of earlier work, newer claim', { inFlightWorkId: 'w', inFlightSince: at(100), lastProgressAt: at(0) }, 150, true],
    ['no progress recorded (a claim from before progress was kept)', { inFlightWorkId: 'w', inFlightSince: at(0), lastProgressAt: null }, 61, false],
  ])('%s', (_name, table, nowSeconds, expected) => {
    expect(workIsAlive(at(nowSeconds), table, STALLED_MS)).toBe(expected);
  });
});
