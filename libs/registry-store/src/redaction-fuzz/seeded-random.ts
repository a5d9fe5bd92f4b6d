/** A small seeded generator (mulberry32): the same seed gives the same cases on every run. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let mixed = this.state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  }

  below(limit: number): number {
    return Math.floor(this.next() * limit);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.below(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
}

/** What a hostile user might put in a password: every delimiter of every grammar, quotes, escapes, unicode. */
const HOSTILE = [..."'\"`;=@:/?#%&+ \\,{}[]()<>|!$*~^-_.", 'é', 'ß', '漢', '😀', '\u00a0'];
const PLAIN = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];

/** A password of 6 to 20 characters (code points), about half of them hostile. */
export function hostilePassword(random: SeededRandom): string {
  const length = 6 + random.below(15);
  return Array.from({ length }, () => random.pick(random.chance(0.5) ? HOSTILE : PLAIN)).join('');
}
