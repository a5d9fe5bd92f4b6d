import { atLeastAsWide, chainOf, keysUnder, signs, standingOf, type DisabledBy, type KeyLink, type KeyStanding, type KeyWidth } from './key-chain';

/** What the lifecycle does to a key other than rotating it. */
export type AccessKeyChange = { kind: 'status'; disabled: boolean } | { kind: 'expiry'; expiresAt: Date | null } | { kind: 'delete' };

/**
 * Who asks: an access key over the signed API, held to the API's rules, or an operator on the bus, who is not (that
 * is how the first key is made, and the way back in when no key works).
 */
export type KeyActor = { kind: 'key'; accessKeyId: string } | { kind: 'operator' };

export type AccessKeyChangeRefusal =
  /** It would leave no usable All key (`withCreated`: counting the keys that stop with the target), so that keys can always be managed. */
  | { rule: 'lastAllKey'; withCreated: boolean }
  /** Enabling a key that a wider key (or an operator) disabled. */
  | { rule: 'disabledByWider'; width: KeyWidth }
  /** An expiry later than the actor's own (`own`: on the actor itself). */
  | { rule: 'outlivesActor'; actorExpiresAt: Date; own: boolean }
  /** The actor itself no longer signs. */
  | { rule: 'actorStopped' };

/** What the store writes, as it is. */
export type KeyWrite =
  | { kind: 'delete'; accessKeyIds: string[] }
  | { kind: 'status'; accessKeyId: string; disabled: boolean; disabledBy: DisabledBy | null }
  | { kind: 'expiry'; accessKeyId: string; expiresAt: Date | null };

export type KeyChangeVerdict = { verdict: 'missing' } | { verdict: 'refused'; refusal: AccessKeyChangeRefusal } | { verdict: 'write'; write: KeyWrite };

/**
 * Judges `change` of `accessKeyId` by `actor` against every key as they are (a store holds them locked meanwhile, so
 * that two changes cannot both pass). For a key actor:
 * - no change leaves no usable All key, the keys that stop with the target counted;
 * - a key disabled by a wider one is enabled only by one at least as wide;
 * - no key is given an expiry later than the actor's own (for the actor itself: it only shortens its lifetime).
 * A disable keeps the widest disabler; a delete takes the keys created under the target with it.
 */
export function judgeChange(keys: ReadonlyMap<string, KeyLink>, accessKeyId: string, change: AccessKeyChange, actor: KeyActor, now: Date): KeyChangeVerdict {
  const target = keys.get(accessKeyId);
  if (target === undefined) return { verdict: 'missing' };
  const standingOfKey = (id: string) => standingOf(chainOf(id, (next) => keys.get(next)));
  let disabler: DisabledBy = { accessKeyId: null, width: 'Operator' };
  if (actor.kind === 'key') {
    const caller = keys.get(actor.accessKeyId);
    const callerStanding = standingOfKey(actor.accessKeyId);
    if (caller === undefined || !signs(callerStanding, now)) return refused({ rule: 'actorStopped' });
    disabler = { accessKeyId: caller.accessKeyId, width: caller.replicationScope };
    const refusal = apiRuleBroken(keys, target, change, disabler, callerStanding.expiresAt, standingOfKey, now);
    if (refusal !== null) return refused(refusal);
  }
  return { verdict: 'write', write: writeOf(keys, target, change, disabler) };
}

function apiRuleBroken(
  keys: ReadonlyMap<string, KeyLink>,
  target: KeyLink,
  change: AccessKeyChange,
  caller: DisabledBy,
  callerExpiresAt: Date | null,
  standingOfKey: (accessKeyId: string) => KeyStanding,
  now: Date,
): AccessKeyChangeRefusal | null {
  if (takesOut(change)) {
    const stopping = keysUnder(target.accessKeyId, keys.values());
    const usableAll = [...keys.values()].filter((key) => key.replicationScope === 'All' && signs(standingOfKey(key.accessKeyId), now)).map((key) => key.accessKeyId);
    if (usableAll.length > 0 && usableAll.every((id) => stopping.has(id))) {
      return { rule: 'lastAllKey', withCreated: usableAll.length > 1 || usableAll[0] !== target.accessKeyId };
    }
  }
  if (change.kind === 'status' && !change.disabled && target.disabled) {
    // Keys disabled before the disabler was recorded count as disabled by an All key (the migration says so too).
    const width = target.disabledBy?.width ?? 'All';
    if (!atLeastAsWide(caller.width, width)) return { rule: 'disabledByWider', width };
  }
  if (change.kind === 'expiry' && callerExpiresAt !== null && (change.expiresAt === null || change.expiresAt > callerExpiresAt)) {
    return { rule: 'outlivesActor', actorExpiresAt: callerExpiresAt, own: target.accessKeyId === caller.accessKeyId };
  }
  return null;
}

function writeOf(keys: ReadonlyMap<string, KeyLink>, target: KeyLink, change: AccessKeyChange, disabler: DisabledBy): KeyWrite {
  switch (change.kind) {
    case 'delete':
      return { kind: 'delete', accessKeyIds: [...keysUnder(target.accessKeyId, keys.values())] };
    case 'expiry':
      return { kind: 'expiry', accessKeyId: target.accessKeyId, expiresAt: change.expiresAt };
    case 'status': {
      if (!change.disabled) return { kind: 'status', accessKeyId: target.accessKeyId, disabled: false, disabledBy: null };
      // Disabling it again does not make a wider disable a narrower key's, which it could then undo.
      const earlier = target.disabled ? (target.disabledBy ?? { accessKeyId: null, width: 'All' }) : null;
      const disabledBy = earlier !== null && !atLeastAsWide(disabler.width, earlier.width) ? earlier : disabler;
      return { kind: 'status', accessKeyId: target.accessKeyId, disabled: true, disabledBy };
    }
  }
}

function refused(refusal: AccessKeyChangeRefusal): KeyChangeVerdict {
  return { verdict: 'refused', refusal };
}

/** Whether the change stops the key signing, now or at its expiry (enabling a key or clearing an expiry does not). */
export function takesOut(change: AccessKeyChange): boolean {
  return change.kind === 'delete' || (change.kind === 'status' && change.disabled) || (change.kind === 'expiry' && change.expiresAt !== null);
}
