import { seededRandom } from '@svc/testing';

/** A small seeded generator (mulberry32): the same seed gives the same cases on every machine. */
export class Random {
  private readonly draw: () => number;

  constructor(seed: number) {
    this.draw = seededRandom(seed);
  }

  /** The generator of case `index` of a run: each case can be replayed alone. */
  static forCase(seed: number, index: number): Random {
    return new Random(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  }

  /** In [0, 1). */
  next(): number {
    return this.draw();
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('nothing to pick from');
    return items[this.int(items.length)];
  }

  text(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
    let text = '';
    for (let at = 0; at < length; at += 1) text += alphabet.charAt(this.int(alphabet.length));
    return text;
  }
}
