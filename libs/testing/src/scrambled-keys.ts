/**
 * The integers first..first+count-1, each once, in a fixed scrambled order (a multiplicative permutation modulo
 * `count`, with 7919 prime and larger than any count used): keys that arrive in no sorted order, the same
 * order on every run.
 */
export function scrambledKeys(count: number, first = 1): number[] {
  if (!Number.isSafeInteger(count) || count < 1 || count >= 7919) throw new RangeError(`count must be an integer from 1 to 7918, got ${count}`);
  return Array.from({ length: count }, (_, index) => first + ((index * 7919) % count));
}
