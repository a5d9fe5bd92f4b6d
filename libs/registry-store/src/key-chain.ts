/**
 * Access keys form chains: a key created over the API holds its rights from the key that created it, and keeps them
 * only while that key does (issue 36). A key whose creator, or a creator further up, is disabled, expired or no longer
 * exists does not sign; its expiry is the earliest along the chain. Pure rules, shared by the store and its fakes.
 */

/** How wide the one who disabled a key was: a key of scope Own, of scope All, or an operator on the bus. */
export type KeyWidth = 'Own' | 'All' | 'Operator';

export interface DisabledBy {
  /** null for an operator on the bus. */
  accessKeyId: string | null;
  width: KeyWidth;
}

/** What the lifecycle rules read of one key. */
export interface KeyLink {
  accessKeyId: string;
  createdBy: string | null;
  replicationScope: 'Own' | 'All';
  disabled: boolean;
  disabledBy: DisabledBy | null;
  expiresAt: Date | null;
}

/** What a key's chain of creators leaves it. */
export interface KeyStanding {
  /** The key or a creator up its chain is disabled, or a creator no longer exists. */
  disabled: boolean;
  /** The earliest expiry of the key and its creators; null for never. */
  expiresAt: Date | null;
}

/** The longest chain followed; a longer one, or a loop, is not trusted. */
export const MAX_CHAIN_LENGTH = 64;

const WIDTH_RANK: Readonly<Record<KeyWidth, number>> = { Own: 0, All: 1, Operator: 2 };

export function atLeastAsWide(width: KeyWidth, than: KeyWidth): boolean {
  return WIDTH_RANK[width] >= WIDTH_RANK[than];
}

/** The key, then its creator, its creator's creator… as far as they exist (MAX_CHAIN_LENGTH at most, a loop cut). */
export function chainOf(accessKeyId: string, linkOf: (accessKeyId: string) => KeyLink | undefined): KeyLink[] {
  const chain: KeyLink[] = [];
  const seen = new Set<string>();
  let next: string | null = accessKeyId;
  while (next !== null && chain.length < MAX_CHAIN_LENGTH && !seen.has(next)) {
    const link = linkOf(next);
    if (link === undefined) break;
    chain.push(link);
    seen.add(next);
    next = link.createdBy;
  }
  return chain;
}

/** `chain` as chainOf gives it (a store may read it in one query): a chain that ends on a missing creator is broken. */
export function standingOf(chain: readonly KeyLink[]): KeyStanding {
  let disabled = chain.length === 0;
  let expiresAt: Date | null = null;
  let previous: KeyLink | undefined;
  for (const link of chain) {
    if (previous !== undefined && previous.createdBy !== link.accessKeyId) disabled = true;
    if (link.disabled) disabled = true;
    if (link.expiresAt !== null && (expiresAt === null || link.expiresAt < expiresAt)) expiresAt = link.expiresAt;
    previous = link;
  }
  // The last key read names a creator: it was deleted, or the chain is too long or loops.
  if ((chain[chain.length - 1]?.createdBy ?? null) !== null) disabled = true;
  return { disabled, expiresAt };
}

export function signs(standing: KeyStanding, now: Date): boolean {
  return !standing.disabled && (standing.expiresAt === null || standing.expiresAt > now);
}

/** The key and every key created under it, down the chain. */
export function keysUnder(accessKeyId: string, links: Iterable<KeyLink>): Set<string> {
  const createdBy = new Map<string, string[]>();
  for (const link of links) {
    if (link.createdBy !== null) createdBy.set(link.createdBy, [...(createdBy.get(link.createdBy) ?? []), link.accessKeyId]);
  }
  const under = new Set<string>([accessKeyId]);
  const pending = [accessKeyId];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const child of createdBy.get(next) ?? []) {
      if (under.has(child)) continue;
      under.add(child);
      pending.push(child);
    }
  }
  return under;
}
