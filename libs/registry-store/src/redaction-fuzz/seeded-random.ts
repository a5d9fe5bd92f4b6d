import { seededRandom } from '@svc/testing';

/** A small seeded generator (mulberry32): the same seed gives the same cases on every run. */
export class SeededRandom {
  private readonly draw: () => number;

  constructor(seed: number) {
    this.draw = seededRandom(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.draw();
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
