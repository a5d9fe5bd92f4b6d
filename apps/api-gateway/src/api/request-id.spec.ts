import { nextRequestId } from './request-id';

describe('nextRequestId', () => {
  it('is a safe integer that differs within one millisecond', () => {
    const first = nextRequestId(1795396800123);
    const second = nextRequestId(1795396800123);
    expect(Number.isSafeInteger(first)).toBe(true);
    expect(second).not.toBe(first);
    expect(Math.floor(first / 1000)).toBe(1795396800123);
  });
});
