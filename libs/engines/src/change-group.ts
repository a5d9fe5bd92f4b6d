import { hasPrimaryKey, type BatchDescriptor } from '@svc/contracts';

/**
 * Refuses, before anything is done, a change group (StagingConnector.applyChangeGroup, WarehouseConnector.loadChangeGroup)
 * with a member only the per-table path may apply: a seed part, a batch of a keyless table, a chunked seed's close, a later
 * batch of a backlog (it must follow its predecessor), or a second batch of a table already in the group.
 */
export function refuseUngroupable(batches: readonly BatchDescriptor[]): void {
  const tables = new Set<string>();
  for (const { definition, body } of batches) {
    const { schema, name } = definition.table;
    const table = `${schema}.${name}`;
    if (body.kind !== 'changes') throw new Error(`change group: the batch of ${table} is a seed part, not a change batch`);
    if (!hasPrimaryKey(definition)) throw new Error(`change group: ${table} has no primary key, and a table without one is never tracked`);
    if (body.closesSeed !== undefined) throw new Error(`change group: the batch of ${table} closes a chunked seed, which is applied alone`);
    if (body.after !== undefined) throw new Error(`change group: the batch of ${table} follows another batch of its backlog and is applied alone, after it`);
    const key = JSON.stringify([schema, name]);
    if (tables.has(key)) throw new Error(`change group: two batches of ${table}; a group holds one batch per table`);
    tables.add(key);
  }
}

/**
 * A group's members in the order their tables' locks are taken: by the name each lock is taken on (`lockName`),
 * compared code unit by code unit (never by locale, which may differ between workers), so that every transaction that
 * locks several tables takes them in one order and no two wait for each other in a cycle (docs/PIPELINE.md, "Lock order").
 */
export function inLockOrder<Member>(members: readonly Member[], lockName: (member: Member) => readonly string[]): Member[] {
  return members
    .map((member) => ({ member, name: lockName(member) }))
    .sort((a, b) => compareNames(a.name, b.name))
    .map(({ member }) => member);
}

function compareNames(left: readonly string[], right: readonly string[]): number {
  for (let part = 0; part < Math.min(left.length, right.length); part += 1) {
    const [l = '', r = ''] = [left[part], right[part]];
    if (l !== r) return l < r ? -1 : 1;
  }
  return left.length - right.length;
}
